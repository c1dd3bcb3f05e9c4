// Proves the disbursement settings through the operator API: the operator sets a business's fee and freeze (updateBusiness) and a wallet's limits (updateWallet), an owner its approval threshold; each shows on its record, is audited, and rules the next disbursement (fee charged, DISBURSEMENTS_FROZEN, LIMIT_EXCEEDED, PENDING_APPROVAL), the daily limit counting one UTC day without the payouts reversed; removing a limit waits for its notice (test/disbursements/four-eyes.test.ts proves the notice whole). An owner sending a limit, a developer, bad amounts and an unknown wallet are refused and change nothing.
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { noticeOver } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, signedIn } from '../helpers/users';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const db = () => svc.database.db;

/** A merchant with 50,000 UGX in its wallet and a MID that disburses. */
async function merchant(): Promise<MerchantSetup> {
  const m = await setupMerchant(svc);
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return m;
}
const disburse = (m: MerchantSetup, amount: number) =>
  m.client.post('/v1/disbursements', {
    amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello', merchant_reference: ref('PAY'),
  }, { headers: { 'secret-key': m.apiSecret } });
const walletRow = async (m: MerchantSetup) =>
  db().one("SELECT disbursement_limit_minor::text AS per, disbursement_daily_limit_minor::text AS daily, disbursement_approval_threshold_minor::text AS threshold FROM wallets WHERE business_id = $1 AND currency = 'UGX'", [m.businessId]);
const lastAudit = async (action: string, businessId: number) =>
  db().one('SELECT actor_type, target_id, before, after FROM audit_log WHERE action = $1 AND business_id = $2 ORDER BY id DESC LIMIT 1', [action, businessId]);
const disbursementsOf = async (m: MerchantSetup) => (await db().one('SELECT count(*)::int AS n FROM disbursements WHERE business_id = $1', [m.businessId])).n;

it('the operator sets the fee and freezes: frozen refuses, unfrozen charges the fee', async () => {
  const m = await merchant();
  const set = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { disbursement_fee_percent: 1.5, disbursement_fee_fixed: 10, disbursements_frozen: true });
  expect(set.status).toBe(200);
  expect(set.body.data).toMatchObject({ disbursement_fee_percent: 1.5, disbursement_fee_fixed: 10, disbursements_frozen: true, disbursement_approval_hours: 24 });
  const audit = await lastAudit('updateBusiness', m.businessId);
  expect(audit.before).toMatchObject({ disbursements_frozen: false, disbursement_fee_fixed_minor: 0 });
  expect(audit.after).toMatchObject({ disbursements_frozen: true, disbursement_fee_fixed_minor: 1000 });
  const frozen = await disburse(m, 1000);
  expect(frozen.status).toBe(403);
  expect(frozen.body.code).toBe('DISBURSEMENTS_FROZEN');
  expect(await disbursementsOf(m)).toBe(0);
  expect((await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { disbursements_frozen: false })).status).toBe(200);
  const paid = await disburse(m, 1000);
  expect(paid.status).toBe(200);
  expect(paid.body.data.fee).toBe(25); // 1.5% of 1,000 plus 10
});

it('the operator sets a wallet\'s limits: above one is LIMIT_EXCEEDED; null removes it after its notice', async () => {
  const m = await merchant();
  const set = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_limit: 2000, disbursement_daily_limit: 3000.5 });
  expect(set.status).toBe(200);
  expect(set.body.data).toMatchObject({ currency: 'UGX', disbursement_limit: 2000, disbursement_daily_limit: 3000.5, disbursement_approval_threshold: null });
  expect(await walletRow(m)).toEqual({ per: '200000', daily: '300050', threshold: null });
  const audit = await lastAudit('updateWallet', m.businessId);
  expect(audit).toMatchObject({ actor_type: 'operator_key', target_id: String(set.body.data.id), before: { disbursement_limit_minor: null }, after: { disbursement_limit_minor: 200000 } });
  expect((await disburse(m, 2500)).body.code).toBe('LIMIT_EXCEEDED');
  expect((await disburse(m, 2000)).status).toBe(200);
  expect((await disburse(m, 1500)).body.code).toBe('LIMIT_EXCEEDED'); // the day's 3,000.50
  const removed = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_daily_limit: null });
  expect(removed.body.data).toMatchObject({ disbursement_daily_limit: 3000.5, scheduled_changes: [{ field: 'disbursement_daily_limit', value: null }] });
  expect((await disburse(m, 1500)).body.code).toBe('LIMIT_EXCEEDED');
  await noticeOver(svc);
  expect(await walletRow(m)).toEqual({ per: '200000', daily: null, threshold: null });
  expect((await disburse(m, 1500)).status).toBe(200);
});

it('the daily limit counts one UTC day, not the last 24 hours, and a payout reversed leaves it', async () => {
  const m = await merchant();
  await db().none('UPDATE wallets SET disbursement_daily_limit_minor = 300000 WHERE business_id = $1', [m.businessId]);
  const id = (await disburse(m, 2000)).body.data.id as string;
  expect((await disburse(m, 1500)).body.code).toBe('LIMIT_EXCEEDED');
  // the same payout made yesterday, one minute before midnight UTC: today's total is empty
  const midnight = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
  await db().none('UPDATE disbursements SET created_at = $2 WHERE id = $1', [id, new Date(midnight.getTime() - 60_000)]);
  const today = await disburse(m, 1500);
  expect(today.status).toBe(200);
  await db().none('UPDATE disbursements SET created_at = $2 WHERE id = $1', [id, midnight]);
  expect((await disburse(m, 1500)).body.code).toBe('LIMIT_EXCEEDED'); // 2,000 + 1,500 today
  // paid, then reversed, as the processor's word moves it (through the one move): it no longer counts
  await eventually(async () => ((await db().one('SELECT status FROM disbursements WHERE id = $1', [id])).status === 'PROCESSING' ? true : undefined), 10_000, 'sent');
  expect((await svc.services.disbursements.move(BigInt(id), { to: 'COMPLETED' }))?.status).toBe('COMPLETED');
  expect((await svc.services.disbursements.move(BigInt(id), { to: 'REVERSED', failureReason: 'Reversed by the processor' }))?.status).toBe('REVERSED');
  expect((await disburse(m, 1500)).status).toBe(200);
});

it('an owner sets the approval threshold; above it waits for approval', async () => {
  const m = await merchant();
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  const set = await owner.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: 1000 });
  expect(set.status).toBe(200);
  expect((await lastAudit('updateWallet', m.businessId)).actor_type).toBe('user');
  expect((await disburse(m, 1000)).body.data.transaction_status).toBe('PENDING');
  expect((await disburse(m, 1000.01)).body.data.transaction_status).toBe('PENDING_APPROVAL');
});

it('refuses an owner\'s limit, a developer, bad amounts and an unknown wallet, changing nothing', async () => {
  const m = await merchant();
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  const limit = await owner.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_limit: 1, disbursement_approval_threshold: 5 });
  expect(limit.status).toBe(403);
  expect(limit.body.code).toBe('FORBIDDEN');
  const developer = await signedIn(svc, await createUser(svc, { role: 'merchant_developer', business_id: m.businessId }));
  expect((await developer.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: 5 })).body.code).toBe('FORBIDDEN');
  expect((await owner.patch(`/v1/admin/businesses/${m.businessId}`, { disbursements_frozen: true })).body.code).toBe('FORBIDDEN');
  for (const body of [{ disbursement_limit: 0 }, { disbursement_approval_threshold: 1.001 }, { disbursement_daily_limit: -5 }, {}]) {
    const bad = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, body);
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  }
  const badFee = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { disbursement_fee_percent: 101 });
  expect(badFee.body.code).toBe('VALIDATION_ERROR');
  const unknown = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}/wallets/KES`, { disbursement_limit: 5 });
  expect(unknown.status).toBe(404);
  expect(await walletRow(m)).toEqual({ per: null, daily: null, threshold: null });
  expect(await db().one('SELECT disbursements_frozen, disbursement_fee_percent::text AS p FROM businesses WHERE id = $1', [m.businessId])).toEqual({ disbursements_frozen: false, p: '0.00' });
  expect((await db().one("SELECT count(*)::int AS n FROM audit_log WHERE action = 'updateWallet' AND business_id = $1", [m.businessId])).n).toBe(0);
});
