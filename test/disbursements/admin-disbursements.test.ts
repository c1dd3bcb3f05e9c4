// Proves the dashboard's reads of disbursements (listAdminDisbursements, getAdminDisbursement): the operator sees every business's, newest first, filtered, with who asked and who decided; a merchant's people see their own business only (another business_id or reference is NOT_FOUND); an operator's filter on an unknown business is NOT_FOUND; one disbursement carries its timeline (asked for by the API token, approved by the owner, each notified change with its delivery, also for changes made before the service kept them); bad input is a clear error.
import { migrate } from '../../src/db/migrate';
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
const KEEPS_CHANGES = '0176_disbursement_state_changes.sql';

/** A merchant with 50,000 UGX, a fee of 10.00 and an approval threshold of 1,000.00. */
async function merchant(): Promise<MerchantSetup> {
  const m = await setupMerchant(svc, { webhookUrl: receiver.url });
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 1000 WHERE id = $1', [m.businessId]);
  await db().none('UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1', [m.businessId]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return m;
}

/** A disbursement; the sandbox pays `...456` and keeps `...503` PROCESSING for good. */
async function disburse(m: MerchantSetup, amount: number, accountNumber = '256772123456') {
  const res = await m.client.post('/v1/disbursements', {
    amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: accountNumber, account_name: 'Okello', merchant_reference: ref('PAY'),
  }, { headers: { 'secret-key': m.apiSecret } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; gateway_reference: string; merchant_reference: string; transaction_status: string };
}

let a: MerchantSetup;
let b: MerchantSetup;
let small: { gateway_reference: string; merchant_reference: string };
let big: { id: string; gateway_reference: string };
let other: { gateway_reference: string };
let ownerId: number;
let ownerEmail: string;

beforeAll(async () => {
  a = await merchant();
  b = await merchant();
  small = await disburse(a, 500, '256772123503');
  big = await disburse(a, 5000);
  expect((await db().one('SELECT status FROM disbursements WHERE id = $1', [big.id])).status).toBe('PENDING_APPROVAL');
  other = await disburse(b, 700, '256772123503');
  const owner = await createUser(svc, { role: 'merchant_owner', business_id: a.businessId, totp: true });
  ownerId = owner.id;
  ownerEmail = owner.email;
  const signed = await signedIn(svc, owner, clock);
  clock.advance(30_000);
  expect((await signed.post(`/v1/admin/disbursements/${big.gateway_reference}/approve`, { code: totpCode(svc) })).status).toBe(200);
  await eventually(async () => ((await db().one('SELECT status FROM disbursements WHERE id = $1', [big.id])).status === 'COMPLETED' ? true : undefined), 10_000, 'completed');
  await eventually(async () => ((await db().one('SELECT count(*)::int AS n FROM notifications WHERE disbursement_id = $1 AND delivered_at IS NOT NULL', [big.id])).n === 3 ? true : undefined), 10_000, 'three delivered');
}, 120_000);

describe('listAdminDisbursements', () => {
  it('gives the operator every business\'s, newest first, with business and decision', async () => {
    const res = await svc.admin.get(`/v1/admin/disbursements?per_page=100`);
    expect(res.status).toBe(200);
    const refs = res.body.data.map((d: { gateway_reference: string }) => d.gateway_reference);
    expect(refs.indexOf(other.gateway_reference)).toBeLessThan(refs.indexOf(big.gateway_reference));
    expect(refs.indexOf(big.gateway_reference)).toBeLessThan(refs.indexOf(small.gateway_reference));
    const approved = res.body.data.find((d: { gateway_reference: string }) => d.gateway_reference === big.gateway_reference);
    expect(approved).toMatchObject({
      business_id: a.businessId, transaction_status: 'COMPLETED', amount: 5000, fee: 10, transaction_type: 'disbursement',
      requested_by: null, decided_by: { user_id: ownerId, email: ownerEmail },
    });
    expect(approved.decided_at).toEqual(expect.any(String));
    expect(approved.approval_expires_at).toEqual(expect.any(String));
    expect(approved.business_name).not.toBe('');
    const plain = res.body.data.find((d: { gateway_reference: string }) => d.gateway_reference === small.gateway_reference);
    expect(plain).toMatchObject({ decided_by: null, decided_at: null, approval_expires_at: null });
  });

  it('filters by business, status and merchant_reference', async () => {
    const ofA = await svc.admin.get(`/v1/admin/disbursements?business_id=${a.businessId}`);
    expect(ofA.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([big.gateway_reference, small.gateway_reference]);
    const done = await svc.admin.get(`/v1/admin/disbursements?business_id=${a.businessId}&status=COMPLETED`);
    expect(done.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([big.gateway_reference]);
    const byRef = await svc.admin.get(`/v1/admin/disbursements?merchant_reference=${small.merchant_reference}`);
    expect(byRef.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([small.gateway_reference]);
  });

  it('confines a merchant\'s people to their own business', async () => {
    const viewer = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }));
    const mine = await viewer.get('/v1/admin/disbursements');
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([big.gateway_reference, small.gateway_reference]);
    const theirs = await viewer.get(`/v1/admin/disbursements?business_id=${b.businessId}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('NOT_FOUND');
  });

  it('answers NOT_FOUND for an unknown business and VALIDATION_ERROR for a bad filter', async () => {
    const unknown = await svc.admin.get('/v1/admin/disbursements?business_id=2147483000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    const bad = await svc.admin.get('/v1/admin/disbursements?status=PAID');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('getAdminDisbursement', () => {
  it('gives the timeline: asked for by the API token, approved by the owner, each change and its delivery', async () => {
    const res = await svc.admin.get(`/v1/admin/disbursements/${big.gateway_reference}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ gateway_reference: big.gateway_reference, transaction_status: 'COMPLETED', decided_by: { user_id: ownerId, email: ownerEmail } });
    const timeline = res.body.data.timeline.map((e: Record<string, unknown>) => [e.event, e.transaction_status, e.actor, e.sequence, e.delivery]);
    expect(timeline).toEqual([
      ['requested', 'PENDING_APPROVAL', `API token ${a.apiKey}`, null, null],
      ['approved', 'PENDING', ownerEmail, null, null],
      ['state_changed', 'PENDING', null, 1, 'delivered'],
      ['state_changed', 'PROCESSING', null, 2, 'delivered'],
      ['state_changed', 'COMPLETED', null, 3, 'delivered'],
    ]);
  });

  it('keeps a token\'s changes made before its changes were kept: the migration that keeps them takes them from the notifications', async () => {
    const before = (await svc.admin.get(`/v1/admin/disbursements/${big.gateway_reference}`)).body.data.timeline;
    // as a database migrated before this table: no table, the migration not applied
    await db().none(`DROP TABLE disbursement_state_changes; DELETE FROM schema_migrations WHERE version = '${KEEPS_CHANGES}'`);
    expect(await migrate(db())).toEqual([KEEPS_CHANGES]);
    const after = (await svc.admin.get(`/v1/admin/disbursements/${big.gateway_reference}`)).body.data.timeline;
    expect(after).toEqual(before);
    expect(after.filter((e: { event: string }) => e.event === 'state_changed')).toHaveLength(3);
  });

  it('shows a merchant\'s people their own; another business\'s or an unknown reference is NOT_FOUND', async () => {
    const viewer = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }));
    const mine = await viewer.get(`/v1/admin/disbursements/${small.gateway_reference}`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.timeline[0]).toMatchObject({ event: 'requested', transaction_status: 'PENDING', actor: `API token ${a.apiKey}` });
    const theirs = await viewer.get(`/v1/admin/disbursements/${other.gateway_reference}`);
    expect(theirs.status).toBe(404);
    const unknown = await svc.admin.get('/v1/admin/disbursements/DBNOSUCHREFERENCE0000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});
