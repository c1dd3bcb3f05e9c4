// An operator resolves a held payment (the processor confirmed another amount) once: COMPLETED credits the
// amount asked and notifies; FAILED notifies and credits nothing; anything not held, a second decision, bad
// input or a role that may not change things is refused and changes nothing. Against a fake MTN over HTTP.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, hooksFor, journalsOf, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { errorFields, expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { Clock, createUser, signedIn } from '../helpers/users';

/** the fake's number that succeeds for one unit less than asked (test/fakes/mtn-momo.ts) */
const SHORT_PAYER = '46733123459';
let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
const clock = new Clock();
let seq = 0;

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS }, now: clock.now });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

async function pay(phone: string): Promise<string> {
  seq += 1;
  const c = expectOk(
    await m.client.post('/v1/collections/request-to-pay', {
      currency: 'UGX',
      amount: 50000,
      payment_method: 'MOBILE_MONEY',
      account_number: phone,
      merchant_reference: `HELD-${process.pid}-${seq}`,
      narration: 'Order held for review',
    }),
  );
  return c.gateway_reference;
}

async function held(): Promise<string> {
  const ref = await pay(SHORT_PAYER);
  await eventually(async () => (await requestOf(svc, ref))?.state === 'held', 15_000, 'held');
  return ref;
}

async function balance(): Promise<number> {
  const b = expectOk(await m.client.get('/v1/data/wallets/UGX/balance'));
  return b.available_balance + b.pending_balance + b.reserved_balance;
}

const resolve = (ref: string, body: unknown) => svc.admin.post(`/v1/admin/collections/${ref}/resolve-held`, body);

it('COMPLETED credits the amount asked once, notifies the merchant and keeps who decided and why', async () => {
  const ref = await held();
  const before = await balance();
  const res = resolve(ref, { outcome: 'COMPLETED', note: 'MTN confirmed 50000 UGX (ticket 88231)' });
  const data = expectOk(await res);
  expect(data).toMatchObject({ gateway_reference: ref, transaction_status: 'COMPLETED', total_credit: 50000 });
  const sent = await svc.services.db.one('SELECT p.reference, p.vendor_reference FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [ref]);
  expect(data.processor_request).toMatchObject({
    reference: sent.reference,
    vendor_reference: sent.vendor_reference,
    state: 'settled',
    held_reason: expect.stringContaining('4999900'),
    resolution: { outcome: 'COMPLETED', note: 'MTN confirmed 50000 UGX (ticket 88231)', resolved_by: 'operator key', resolved_at: expect.stringMatching(/Z$/) },
  });
  expect(await journalsOf(svc, ref)).toBe(1);
  expect(await balance()).toBe(before + 50000);
  const hook = await eventually(() => hooksFor(hooks.received, ref).find((h) => h.transaction_status === 'COMPLETED'), 10_000, 'the completion webhook');
  expect(hook.sequence).toBe(1);
  const audit = await svc.services.db.one("SELECT actor_type, target_id FROM audit_log WHERE action = 'resolveHeldCollection' AND target_id = $1", [ref]);
  expect(audit).toEqual({ actor_type: 'operator_key', target_id: ref });

  // once only: a second decision is refused and changes nothing
  const state = await databaseState(svc.services.db);
  const again = await resolve(ref, { outcome: 'FAILED', note: 'changed my mind' });
  expect(again.status).toBe(400);
  expect(again.body.code).toBe('INVALID_STATE');
  expect(await databaseState(svc.services.db)).toEqual(state);
});

it('FAILED notifies a failure and credits nothing; the decision is the signed-in operator’s', async () => {
  const ref = await held();
  const before = await balance();
  const adminUser = await createUser(svc, { role: 'operator_admin', totp: true });
  const session = await signedIn(svc, adminUser, clock);
  const data = expectOk(await session.post(`/v1/admin/collections/${ref}/resolve-held`, { outcome: 'FAILED', note: 'Short payment reversed by MTN' }));
  expect(data.transaction_status).toBe('FAILED');
  expect(data.processor_request.resolution).toMatchObject({ outcome: 'FAILED', resolved_by: adminUser.email });
  expect(await journalsOf(svc, ref)).toBe(0);
  expect(await balance()).toBe(before);
  await eventually(() => hooksFor(hooks.received, ref).some((h) => h.transaction_status === 'FAILED'), 10_000, 'the failure webhook');
  // the merchant's own people read the payment without the processor side
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }), clock);
  expect(expectOk(await owner.get(`/v1/admin/collections/${ref}`))).toMatchObject({ transaction_status: 'FAILED', processor_request: null, checkout: null });
});

it('refuses what is not held, bad input and operator support, changing nothing', async () => {
  const settled = await pay('256772000123'); // any other number succeeds
  await eventually(async () => (await requestOf(svc, settled))?.state === 'settled', 15_000, 'settled');
  const ref = await held();
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  // a session's last_seen_at moves with every request it makes: everything else must stay as it was
  const stateOf = async () => {
    const { user_sessions: _sessions, ...rest } = await databaseState(svc.services.db);
    return rest;
  };
  const state = await stateOf();

  const notHeld = await resolve(settled, { outcome: 'COMPLETED', note: 'x' });
  expect([notHeld.status, notHeld.body.code]).toEqual([400, 'INVALID_STATE']);
  const unknown = await resolve('PCNOSUCHREFERENCE00000', { outcome: 'COMPLETED', note: 'x' });
  expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
  const badOutcome = await resolve(ref, { outcome: 'PENDING', note: 'x' });
  expect(badOutcome.status).toBe(400);
  expect(errorFields(badOutcome)).toContain('outcome');
  const noNote = await resolve(ref, { outcome: 'COMPLETED', note: '' });
  expect(noNote.status).toBe(400);
  expect(errorFields(noNote)).toContain('note');
  const forbidden = await support.post(`/v1/admin/collections/${ref}/resolve-held`, { outcome: 'COMPLETED', note: 'support may not' });
  expect([forbidden.status, forbidden.body.code]).toEqual([403, 'FORBIDDEN']);

  expect(await stateOf()).toEqual(state);
  expect((await requestOf(svc, ref))?.state).toBe('held');
});
