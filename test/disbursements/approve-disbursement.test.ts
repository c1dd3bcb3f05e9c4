// Proves four eyes on disbursements above the wallet's approval threshold, through the operator API: an owner of the business approves one (it is sent and completes) or rejects one (CANCELLED, amount and fee back), each notified; a developer, an owner of another business, the operator and a second decision are refused and change nothing; nobody deciding in time cancels it.
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn, totpCode } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms', WEBHOOK_RETRY_SCHEDULE: '0s,100ms' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const db = () => svc.database.db;

/** A merchant with 50,000 UGX, a fee of 10.00, and an approval threshold of 1,000.00 on its wallet. */
async function merchant(): Promise<MerchantSetup> {
  const m = await setupMerchant(svc, { webhookUrl: receiver.url });
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 1000 WHERE id = $1', [m.businessId]);
  await db().none('UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1', [m.businessId]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return m;
}

const waiting = async (m: MerchantSetup) => {
  const res = await m.client.post('/v1/disbursements', {
    amount: 5000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('PAY'),
  }, { headers: { 'secret-key': m.apiSecret } });
  expect(res.body.data.transaction_status).toBe('PENDING_APPROVAL');
  return res.body.data as { id: string; gateway_reference: string };
};
const wallet = async (m: MerchantSetup) => (await m.client.get('/v1/data/wallets/UGX/balance')).body.data;
const statusOf = async (id: string) => (await db().one('SELECT status, decided_by_user_id, send_attempts FROM disbursements WHERE id = $1', [id]));
/** An owner of `m` with an authenticator, signed in. */
const owner = async (m: MerchantSetup) => signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true }), clock);
/** An approval's body: the next 30-second step's code (every code is accepted once). */
const approval = () => {
  clock.advance(30_000);
  return { code: totpCode(svc) };
};
const hooksOf = (reference: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.gateway_reference === reference).map((b) => [b.sequence, b.transaction_status]);

it('an owner approves: the disbursement is sent and completes, each change notified', async () => {
  const m = await merchant();
  const d = await waiting(m);
  const res = await (await owner(m)).post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, approval());
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'awaiting_processor' });
  await eventually(async () => ((await statusOf(d.id)).status === 'COMPLETED' ? true : undefined), 10_000, 'completed');
  expect(await wallet(m)).toMatchObject({ balance: 44990, disbursement_held_balance: 0 });
  await eventually(async () => (hooksOf(d.gateway_reference).length === 3 ? true : undefined), 10_000, 'three notifications');
  expect(hooksOf(d.gateway_reference)).toEqual([[1, 'PENDING'], [2, 'PROCESSING'], [3, 'COMPLETED']]);
  const audit = await db().one("SELECT actor_type, actor_user_id, target_type, target_id FROM audit_log WHERE action = 'approveDisbursement' AND business_id = $1", [m.businessId]);
  expect(audit).toEqual({ actor_type: 'user', actor_user_id: (await statusOf(d.id)).decided_by_user_id, target_type: 'disbursement', target_id: d.gateway_reference });
});

it('an owner rejects: CANCELLED, amount and fee back; a second decision is INVALID_STATE', async () => {
  const m = await merchant();
  const d = await waiting(m);
  expect(await wallet(m)).toMatchObject({ available_balance: 44990, disbursement_held_balance: 5010 });
  const o = await owner(m);
  const res = await o.post(`/v1/admin/disbursements/${d.gateway_reference}/reject`, {});
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ transaction_status: 'CANCELLED', failure_reason: 'Rejected by an owner of the business' });
  expect(await wallet(m)).toMatchObject({ balance: 50000, available_balance: 50000, disbursement_held_balance: 0 });
  const again = await o.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, approval());
  expect(again.status).toBe(400);
  expect(again.body.code).toBe('INVALID_STATE');
  expect(await statusOf(d.id)).toMatchObject({ status: 'CANCELLED', send_attempts: 0 });
  expect(await db().one("SELECT target_type, target_id FROM audit_log WHERE action = 'rejectDisbursement' AND business_id = $1", [m.businessId])).toEqual({ target_type: 'disbursement', target_id: d.gateway_reference });
});

it('refuses a developer, another business\'s owner and the operator, changing nothing', async () => {
  const m = await merchant();
  const d = await waiting(m);
  const developer = await signedIn(svc, await createUser(svc, { role: 'merchant_developer', business_id: m.businessId }));
  expect((await developer.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, approval())).body.code).toBe('FORBIDDEN');
  const other = await merchant();
  const stranger = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: other.businessId }));
  expect((await stranger.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, approval())).status).toBe(404);
  const operator = await svc.admin.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, approval());
  expect(operator.status).toBe(403);
  expect(operator.body.code).toBe('FORBIDDEN');
  expect(await statusOf(d.id)).toEqual({ status: 'PENDING_APPROVAL', decided_by_user_id: null, send_attempts: 0 });
});

it('refuses the person who asked for it', async () => {
  const m = await merchant();
  const d = await waiting(m);
  const asker = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
  await db().none('UPDATE disbursements SET requested_by_user_id = $2 WHERE id = $1', [d.id, asker.id]);
  const res = await (await signedIn(svc, asker, clock)).post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, approval());
  expect(res.status).toBe(403);
  expect(res.body.message).toBe('Another owner must decide on a disbursement you asked for');
  expect((await statusOf(d.id)).status).toBe('PENDING_APPROVAL');
});

it('cancels a disbursement nobody decided in time, returning amount and fee', async () => {
  const m = await merchant();
  const d = await waiting(m);
  const kept = await waiting(m);
  await db().none("UPDATE disbursements SET approval_expires_at = now() - interval '1 second' WHERE id = $1", [d.id]);
  // the worker does this every minute; called here so the test does not wait
  await svc.services.disbursements.expireApprovals();
  expect(await db().one('SELECT status, failure_reason FROM disbursements WHERE id = $1', [d.id])).toEqual({ status: 'CANCELLED', failure_reason: 'Not approved in time' });
  expect((await statusOf(kept.id)).status).toBe('PENDING_APPROVAL');
  expect(await wallet(m)).toMatchObject({ available_balance: 44990, disbursement_held_balance: 5010 });
});
