// Proves a disbursement asked for in the dashboard (createAdminDisbursement): an owner with a current authenticator code gets one through the same path as the API's (it completes through the sandbox simulator, held and paid like any, no webhook since no token asked, audited under the owner and shown in its timeline with each change of state in order); above the threshold it waits, the other owners (not the asking one) are asked by e-mail, and the asking owner may not approve it, another may, and its timeline shows the request, the approval and each change to COMPLETED in order (a late decision adds nothing); a replay answers the same one; and an owner without an authenticator, a wrong or used code, a developer, a viewer, an operator, a short balance and bad fields are refused and change nothing (a wrong code is audited).
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn, totpCode } from '../helpers/users';
import type { SessionClient } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const db = () => svc.database.db;

/** A merchant with 50,000 UGX, a disbursement fee of 10.00 and a MID that disburses; `threshold` on its wallet. */
async function merchant(threshold: number | null = null): Promise<MerchantSetup> {
  const m = await setupMerchant(svc);
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 1000 WHERE id = $1', [m.businessId]);
  await db().none('UPDATE wallets SET disbursement_approval_threshold_minor = $2 WHERE business_id = $1', [m.businessId, threshold]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return m;
}

/** A signed-in owner of `m` with an authenticator (its code at sign-in is used: the clock moves on). */
async function owner(m: MerchantSetup): Promise<{ client: SessionClient; id: number; email: string }> {
  const user = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
  return { client: await signedIn(svc, user, clock), id: user.id, email: user.email };
}

const body = (o: Record<string, unknown> = {}) => ({
  amount: 1000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport', merchant_reference: ref('DASH'), narration: 'Week 48', ...o,
});
/** The next 30-second step's code: every code is accepted once. */
const freshCode = () => {
  clock.advance(30_000);
  return totpCode(svc);
};
const disburse = (client: SessionClient, o: Record<string, unknown> = {}) => client.post('/v1/admin/disbursements', { ...body(o), code: freshCode() });

/** What a refused request must leave as it was. */
async function written(m: MerchantSetup) {
  return db().one(
    `SELECT (SELECT count(*)::int FROM disbursements WHERE business_id = $1) AS disbursements,
            (SELECT count(*)::int FROM journals j JOIN disbursements d ON d.id = j.disbursement_id WHERE d.business_id = $1) AS journals,
            (SELECT count(*)::int FROM audit_log WHERE business_id = $1 AND action = 'createAdminDisbursement') AS entries`,
    [m.businessId],
  );
}
const nothing = { disbursements: 0, journals: 0, entries: 0 };
/** The hold journals of `m`'s disbursements: one per disbursement accepted, whatever the workers did since. */
const holdsOf = async (m: MerchantSetup) =>
  (await db().one<{ n: number }>("SELECT count(*)::int AS n FROM journals j JOIN disbursements d ON d.id = j.disbursement_id WHERE d.business_id = $1 AND j.kind = 'disbursement_hold'", [m.businessId])).n;
const refusedCodes = (userId: number) => db().any("SELECT actor_user_id, target_id, after FROM audit_log WHERE action = 'disbursementCodeRefused' AND actor_user_id = $1 ORDER BY id", [userId]);
type Entry = { event: string; transaction_status: string; actor: string | null; sequence: number | null; delivery: string | null; at: string };
/** Oldest first: every entry at or after the one before it. */
const inOrder = (timeline: Entry[]) => timeline.every((e, i) => i === 0 || Date.parse(timeline[i - 1].at) <= Date.parse(e.at));
const wallet = async (m: MerchantSetup) => (await m.client.get('/v1/data/wallets/UGX/balance')).body.data;

it('an owner with a current code pays out through the same path as the API: held, sent, completed, audited under the owner, no webhook', async () => {
  const m = await merchant();
  const o = await owner(m);
  const res = await disburse(o.client, { merchant_reference: 'DASH-OWNER-0001' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'accepted', message: 'Disbursement accepted' });
  expect(res.body.data).toMatchObject({
    merchant_reference: 'DASH-OWNER-0001', amount: 1000, fee: 10, transaction_status: 'PENDING', business_id: m.businessId, requested_by: { user_id: o.id, email: o.email }, decided_by: null,
  });
  expect(res.headers.get('idempotent-replayed')).toBeNull();
  const reference = res.body.data.gateway_reference as string;
  const row = () => db().one('SELECT status, api_token_id, requested_by_user_id FROM disbursements WHERE gateway_reference = $1', [reference]);
  expect(await row()).toMatchObject({ api_token_id: null, requested_by_user_id: o.id });
  await eventually(async () => ((await row()).status === 'COMPLETED' ? true : undefined), 15_000, 'completed by the simulator');
  expect(await wallet(m)).toMatchObject({ balance: 48990, disbursement_held_balance: 0 });
  expect(await db().one('SELECT count(*)::int AS n FROM notifications n JOIN disbursements d ON d.id = n.disbursement_id WHERE d.gateway_reference = $1', [reference])).toEqual({ n: 0 });
  const entry = await db().one("SELECT actor_type, actor_user_id, target_type, target_id, after FROM audit_log WHERE action = 'createAdminDisbursement' AND business_id = $1", [m.businessId]);
  expect(entry).toMatchObject({ actor_type: 'user', actor_user_id: o.id, target_type: 'disbursement', target_id: reference, after: { transaction_status: 'PENDING' } });
  expect(JSON.stringify(entry.after)).not.toContain('"code"');
  // the merchant API sees it as its own
  expect((await m.client.get(`/v1/disbursements/${reference}`, { headers: { 'secret-key': m.apiSecret } })).body.data.transaction_status).toBe('COMPLETED');
  // no webhook, yet every change of state is on its timeline, in order, without a notification's fields
  const timeline = (await o.client.get(`/v1/admin/disbursements/${reference}`)).body.data.timeline;
  expect(timeline.map((e: Entry) => [e.event, e.transaction_status, e.actor, e.sequence, e.delivery])).toEqual([
    ['requested', 'PENDING', o.email, null, null],
    ['state_changed', 'PROCESSING', null, null, null],
    ['state_changed', 'COMPLETED', null, null, null],
  ]);
  expect(inOrder(timeline)).toBe(true);
}, 60_000);

it('above the threshold it waits, and asks the other owners (not the one who asked) by e-mail: the owner who asked may not approve it, another owner may', async () => {
  const m = await merchant(1000_00);
  const asker = await owner(m);
  const otherOwner = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
  const res = await disburse(asker.client, { amount: 5000 });
  expect(res.body.data).toMatchObject({ transaction_status: 'PENDING_APPROVAL', requested_by: { user_id: asker.id } });
  const reference = res.body.data.gateway_reference as string;
  const asked = await db().any("SELECT recipient FROM emails WHERE kind = 'disbursement_approval' AND text_body LIKE '%' || $1 || '%'", [reference]);
  expect(asked.map((e: { recipient: string }) => e.recipient)).toEqual([otherOwner.email]);
  const own = await asker.client.post(`/v1/admin/disbursements/${reference}/approve`, { code: freshCode() });
  expect([own.status, own.body.message]).toEqual([403, 'Another owner must decide on a disbursement you asked for']);
  const other = await signedIn(svc, otherOwner, clock);
  const approved = await other.post(`/v1/admin/disbursements/${reference}/approve`, { code: freshCode() });
  expect(approved.status).toBe(200);
  expect(approved.body.data.transaction_status).toBe('PENDING');
  const row = () => db().one('SELECT status FROM disbursements WHERE gateway_reference = $1', [reference]);
  await eventually(async () => ((await row()).status === 'COMPLETED' ? true : undefined), 15_000, 'completed by the simulator');
  const timelineOf = async () => (await other.get(`/v1/admin/disbursements/${reference}`)).body.data.timeline;
  const timeline = await timelineOf();
  expect(timeline.map((e: Entry) => [e.event, e.transaction_status, e.actor, e.sequence, e.delivery])).toEqual([
    ['requested', 'PENDING_APPROVAL', asker.email, null, null],
    ['approved', 'PENDING', otherOwner.email, null, null],
    ['state_changed', 'PENDING', null, null, null],
    ['state_changed', 'PROCESSING', null, null, null],
    ['state_changed', 'COMPLETED', null, null, null],
  ]);
  expect(inOrder(timeline)).toBe(true);
  // a decision too late is refused and adds nothing to the timeline
  const late = await other.post(`/v1/admin/disbursements/${reference}/reject`, {});
  expect([late.status, late.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(await timelineOf()).toEqual(timeline);
}, 60_000);

it('a replay with the same body (and a fresh code) answers the same disbursement; a different body is DUPLICATE_MERCHANT_REFERENCE', async () => {
  const m = await merchant();
  const o = await owner(m);
  const first = await disburse(o.client, { merchant_reference: 'DASH-REPLAY-01' });
  expect(first.status).toBe(200);
  const again = await disburse(o.client, { merchant_reference: 'DASH-REPLAY-01' });
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.message).toBe('Disbursement already accepted');
  expect(again.body.data.gateway_reference).toBe(first.body.data.gateway_reference);
  const other = await disburse(o.client, { merchant_reference: 'DASH-REPLAY-01', amount: 1001 });
  expect([other.status, other.body.code]).toEqual([400, 'DUPLICATE_MERCHANT_REFERENCE']);
  // one disbursement, held once (the simulator may have paid it out meanwhile: its out journal is not the replay's)
  expect((await written(m)).disbursements).toBe(1);
  expect(await holdsOf(m)).toBe(1);
  const timeline = (await o.client.get(`/v1/admin/disbursements/${first.body.data.gateway_reference}`)).body.data.timeline;
  expect(timeline.filter((e: { event: string }) => e.event === 'requested')).toHaveLength(1);
});

it('refuses an owner without an authenticator, telling them to set one up, and changes nothing', async () => {
  const m = await merchant();
  const plain = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  const res = await plain.post('/v1/admin/disbursements', { ...body(), code: '123456' });
  expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
  expect(res.body.message).toMatch(/authenticator app in Account/);
  expect(await written(m)).toEqual(nothing);
});

it('refuses a wrong code and a code already used (401, as at sign-in), audits each, and changes nothing else', async () => {
  const m = await merchant();
  const o = await owner(m);
  const code = freshCode();
  const wrong = code === '000000' ? '111111' : '000000';
  const refused = await o.client.post('/v1/admin/disbursements', { ...body({ merchant_reference: 'DASH-WRONG-01' }), code: wrong });
  expect([refused.status, refused.body.code, refused.body.message]).toEqual([401, 'UNAUTHORIZED', 'The code is wrong or was already used']);
  expect(await written(m)).toEqual(nothing);
  const used = await o.client.post('/v1/admin/disbursements', { ...body(), code });
  expect(used.status).toBe(200);
  const reused = await o.client.post('/v1/admin/disbursements', { ...body({ merchant_reference: 'DASH-REUSED-01' }), code });
  expect([reused.status, reused.body.code]).toEqual([401, 'UNAUTHORIZED']);
  // the one that was let through is held once (and may have been paid out by the simulator meanwhile)
  expect(await written(m)).toMatchObject({ disbursements: 1, entries: 1 });
  expect(await holdsOf(m)).toBe(1);
  const entries = await refusedCodes(o.id);
  expect(entries).toEqual([
    { actor_user_id: o.id, target_id: String(o.id), after: expect.objectContaining({ operation: 'createAdminDisbursement', merchant_reference: 'DASH-WRONG-01', amount: '1000', currency: 'UGX', reason: 'wrong_code' }) },
    { actor_user_id: o.id, target_id: String(o.id), after: expect.objectContaining({ merchant_reference: 'DASH-REUSED-01', reason: 'wrong_code' }) },
  ]);
  expect(JSON.stringify(entries)).not.toContain(code);
  // the session still works: a wrong code is not a signed-out session
  expect((await o.client.get('/v1/admin/session')).status).toBe(200);
});

it('refuses developers, viewers and operators (a session or the key), changing nothing', async () => {
  const m = await merchant();
  const callers = [
    await signedIn(svc, await createUser(svc, { role: 'merchant_developer', business_id: m.businessId, totp: true }), clock),
    await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: m.businessId, totp: true }), clock),
    await signedIn(svc, await createUser(svc, { role: 'operator_admin', totp: true }), clock),
    await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock),
  ];
  const answers = [];
  for (const c of callers) {
    const res = await disburse(c);
    answers.push([res.status, res.body.code]);
  }
  const key = await svc.admin.post('/v1/admin/disbursements', { ...body(), code: freshCode() });
  answers.push([key.status, key.body.code]);
  expect(answers).toEqual(Array(5).fill([403, 'FORBIDDEN']));
  expect(await written(m)).toEqual(nothing);
});

it('refuses a short balance and bad fields (each at its field), changing nothing and leaving the code unused', async () => {
  const m = await merchant();
  const o = await owner(m);
  const short = await disburse(o.client, { amount: 49995 });
  expect([short.status, short.body.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
  const fields = await disburse(o.client, { account_number: '25677212', bank_code: '058' });
  expect([fields.status, fields.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  expect(fields.body.data.map((f: { field: string }) => f.field).sort()).toEqual(['account_number', 'bank_code']);
  const decimals = await disburse(o.client, { amount: 10.001 });
  expect(decimals.body.data).toEqual([expect.objectContaining({ field: 'amount' })]);
  const noCode = await o.client.post('/v1/admin/disbursements', body());
  expect([noCode.status, noCode.body.data]).toEqual([400, [{ field: 'code', message: expect.any(String) }]]);
  expect(await written(m)).toEqual(nothing);
  expect(await refusedCodes(o.id)).toEqual([]);
  // a request refused for its content did not use its code up: the same code works once it is right
  const code = freshCode();
  expect((await o.client.post('/v1/admin/disbursements', { ...body(), amount: 49995, code })).body.code).toBe('INSUFFICIENT_FUNDS');
  expect((await o.client.post('/v1/admin/disbursements', { ...body(), code })).status).toBe(200);
});
