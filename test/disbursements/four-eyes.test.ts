// Proves, through the public API, that four eyes on money out need two people: an owner who holds an API token's secret (created or last regenerated it) cannot approve what the token asks; a second owner account is announced and cannot approve without a confirmed authenticator's code or before its waiting period; nobody approves after the deadline (the disbursement is cancelled, never sent); the audit log keeps the payee's number masked; and, as a table, every money-out decision (approve, reject, threshold, allowlist, limits, freeze) by every actor gets its documented answer and a refusal changes nothing. One owner cannot remove or raise a wallet's approval threshold alone (the change waits for its notice, every owner is emailed at once, another owner stops it by setting the threshold again, and it applies only after the notice, audited), an operator raising a limit waits the same way while lowering applies at once; a wider IP allowlist waits too, and in live a block such as 0.0.0.0/0 is refused and a token's first list waits; a person who becomes an owner is announced to the other owners and the operator admins; and wrong codes for a disbursement never lock an owner out of signing in.
import { createHash } from 'node:crypto';
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { accessToken, expectOk } from '../helpers/merchants';
import { currentCode } from '../../src/people/totp';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, SessionClient, signedIn, tokenFromOutbox, totpCode } from '../helpers/users';

const HOUR = 3_600_000;
const clock = new Clock();
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000', DISBURSEMENT_GUARD_NOTICE_HOURS: '48', OWNER_APPROVAL_WAIT_HOURS: '72' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const db = () => svc.database.db;

/** A merchant with 50,000 UGX, a MID that disburses and an approval threshold of 1,000.00 on its wallet. */
async function merchant(): Promise<MerchantSetup> {
  const m = await setupMerchant(svc);
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  await db().none('UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1', [m.businessId]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return m;
}

async function owner(m: MerchantSetup, o: { totp?: boolean } = {}): Promise<{ client: SessionClient; id: number; email: string }> {
  const user = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: o.totp });
  return { client: await signedIn(svc, user, clock), id: user.id, email: user.email };
}

/** A disbursement asked for through the API, with an access token of now (the test moves the clock by days). */
const ask = async (m: MerchantSetup, amount: number) =>
  svc.merchant(await accessToken(svc, m.apiKey, m.apiSecret)).post('/v1/disbursements', {
    amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('PAY'),
  }, { headers: { 'secret-key': m.apiSecret } });
const wallet = async (m: MerchantSetup) =>
  db().one("SELECT disbursement_approval_threshold_minor::text AS threshold, disbursement_limit_minor::text AS limit FROM wallets WHERE business_id = $1 AND currency = 'UGX'", [m.businessId]);
const emailsOf = (kind: string, since: number) => db().any('SELECT recipient, subject, text_body FROM emails WHERE kind = $1 AND id > $2 ORDER BY id', [kind, since]);
const lastEmail = async () => (await db().one('SELECT coalesce(max(id), 0)::int AS n FROM emails')).n;
/** The guard-changes worker's run (once a minute in the service), called so the test does not wait. */
const applyDue = () => svc.services.guards.applyDue();

describe('one owner cannot take the approval threshold away alone', () => {
  it('removing it waits for its notice, every owner is told, and disbursements above it still wait meanwhile', async () => {
    const m = await merchant();
    const [a, b] = [await owner(m), await owner(m)];
    const since = await lastEmail();
    const res = await a.client.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: null });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/^Wallet updated; disbursement approval threshold takes effect at /);
    expect(res.body.data.disbursement_approval_threshold).toBe(1000);
    expect(res.body.data.scheduled_changes).toEqual([
      { field: 'disbursement_approval_threshold', value: null, effective_at: expect.any(String), requested_by: a.email, requested_at: expect.any(String) },
    ]);
    expect(Date.parse(res.body.data.scheduled_changes[0].effective_at) - clock.now().getTime()).toBeGreaterThan(47.9 * HOUR);
    expect(await wallet(m)).toMatchObject({ threshold: '100000' });
    // every owner, the asking one included, is told at once
    const told = await emailsOf('guard_change_scheduled', since);
    expect(told.map((e) => e.recipient).sort()).toEqual([a.email, b.email].sort());
    expect(told[0].subject).toMatch(/the approval threshold of the UGX wallet changes on .* unless an owner stops it$/);
    expect(told[0].text_body).toContain(`${a.email} asked on`);
    expect(told[0].text_body).toContain('to: none');
    // the next 1,300 still waits for a second person
    expect((await ask(m, 1300)).body.data.transaction_status).toBe('PENDING_APPROVAL');
    // an hour before the notice is over nothing applies; after it, the worker applies it, audited under the owner who asked
    clock.advance(47 * HOUR);
    expect(await applyDue()).toBe(0);
    expect(await wallet(m)).toMatchObject({ threshold: '100000' });
    clock.advance(2 * HOUR);
    expect(await applyDue()).toBe(1);
    expect(await wallet(m)).toMatchObject({ threshold: null });
    const entry = await db().one("SELECT actor_type, actor_user_id, target_type, before, after FROM audit_log WHERE action = 'applyScheduledGuardChange' AND business_id = $1", [m.businessId]);
    expect(entry).toMatchObject({ actor_type: 'user', actor_user_id: a.id, target_type: 'wallet', before: { disbursement_approval_threshold_minor: 100000 }, after: { disbursement_approval_threshold_minor: null } });
    expect((await ask(m, 1300)).body.data.transaction_status).toBe('PENDING');
    // (the owners' sessions ended during the two days: the operator reads it)
    const read = await svc.admin.get(`/v1/admin/businesses/${m.businessId}/wallets`);
    expect(read.body.data[0]).toMatchObject({ disbursement_approval_threshold: null, scheduled_changes: [] });
    expect(b.id).not.toBe(a.id);
  });

  it('another owner stops it by setting the threshold again; raising waits, lowering applies at once', async () => {
    const m = await merchant();
    const [a, b] = [await owner(m), await owner(m)];
    expectOk(await a.client.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: 5000 }));
    expect(await wallet(m)).toMatchObject({ threshold: '100000' });
    // set to what it is: applies at once (nothing changes) and withdraws the raise
    const stopped = await b.client.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: 1000 });
    expect(stopped.body).toMatchObject({ message: 'Wallet updated', data: { disbursement_approval_threshold: 1000, scheduled_changes: [] } });
    clock.advance(49 * HOUR);
    expect(await applyDue()).toBe(0);
    expect(await wallet(m)).toMatchObject({ threshold: '100000' });
    // lowering applies at once (a session of today: the earlier ones ended during the two days)
    const c = await owner(m);
    expectOk(await c.client.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: 500 }));
    expect(await wallet(m)).toMatchObject({ threshold: '50000' });
    expect((await ask(m, 600)).body.data.transaction_status).toBe('PENDING_APPROVAL');
  });

  it('an operator raising a limit waits the same way and every owner is told; lowering one applies at once', async () => {
    const m = await merchant();
    const a = await owner(m);
    await db().none("UPDATE wallets SET disbursement_limit_minor = 200000 WHERE business_id = $1", [m.businessId]);
    const since = await lastEmail();
    const raised = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_limit: 10000 });
    expect(raised.body.data).toMatchObject({ disbursement_limit: 2000, scheduled_changes: [{ field: 'disbursement_limit', value: 10000, requested_by: 'operator key' }] });
    expect((await emailsOf('guard_change_scheduled', since)).map((e) => e.recipient)).toEqual([a.email]);
    expect((await ask(m, 2500)).body.code).toBe('LIMIT_EXCEEDED');
    const lowered = await svc.admin.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_limit: 1500 });
    expect(lowered.body.data).toMatchObject({ disbursement_limit: 1500, scheduled_changes: [] });
    expect(await wallet(m)).toMatchObject({ limit: '150000' });
  });
});

describe('a wider IP allowlist waits for its notice (sandbox)', () => {
  it('widening or removing a list waits and is announced; narrowing applies at once', async () => {
    const m = await merchant();
    const a = await owner(m);
    const stored = async () => (await db().one('SELECT ip_allowlist::text[] AS a FROM api_tokens WHERE id = $1', [m.apiTokenId])).a;
    // the sandbox accepts a token without a list from anywhere: a first list narrows it, at once
    expectOk(await a.client.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['127.0.0.1/32'] }));
    expect(await stored()).toEqual(['127.0.0.1/32']);
    const since = await lastEmail();
    const wider = await a.client.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['127.0.0.1/32', '203.0.113.0/24'] });
    expect(wider.body.message).toMatch(/^API token updated; ip allowlist takes effect at /);
    expect(wider.body.data).toMatchObject({ ip_allowlist: ['127.0.0.1/32'], scheduled_changes: [{ field: 'ip_allowlist', value: ['127.0.0.1/32', '203.0.113.0/24'], requested_by: a.email }] });
    expect((await emailsOf('guard_change_scheduled', since)).map((e) => e.recipient)).toEqual([a.email]);
    // removing the list (anyone, in the sandbox) waits too, replacing the wider list that waited
    const removed = await a.client.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: null });
    expect(removed.body.data.scheduled_changes).toEqual([expect.objectContaining({ field: 'ip_allowlist', value: null })]);
    expect(await stored()).toEqual(['127.0.0.1/32']);
    clock.advance(49 * HOUR);
    expect(await applyDue()).toBe(1);
    expect(await stored()).toBeNull();
  });
});

describe('an owner who joins', () => {
  it('is announced to the other owners and the operator admins, whether invited or given the role', async () => {
    const m = await merchant();
    const a = await owner(m);
    const admin = await createUser(svc, { role: 'operator_admin' });
    const since = await lastEmail();
    const invited = await a.client.post('/v1/admin/invitations', { email: 'second.owner@people.example', role: 'merchant_owner', business_id: m.businessId });
    expect(invited.status).toBe(200);
    const token = await tokenFromOutbox(svc, 'second.owner@people.example', 'accept-invitation');
    const accepted = await svc.anon.post('/v1/admin/invitations/accept', { token, password: 'a long enough password' });
    expect(accepted.status).toBe(200);
    const told = await emailsOf('owner_joined', since);
    expect(told.map((e) => e.recipient)).toEqual(expect.arrayContaining([a.email, admin.email]));
    expect(told.map((e) => e.recipient)).not.toContain('second.owner@people.example');
    expect(told[0].subject).toBe(`New owner of ${(await db().one('SELECT name FROM businesses WHERE id = $1', [m.businessId])).name}: second.owner@people.example`);
    expect(told[0].text_body).toContain(`(invited by ${a.email})`);
    expect(await db().one('SELECT owner_since IS NOT NULL AS set FROM users WHERE email = $1', ['second.owner@people.example'])).toEqual({ set: true });
    // a developer given the role is announced the same way, and counts as an owner from now
    const developer = await createUser(svc, { role: 'merchant_developer', business_id: m.businessId });
    const before = await lastEmail();
    expectOk(await a.client.patch(`/v1/admin/users/${developer.id}`, { role: 'merchant_owner' }));
    const promoted = await emailsOf('owner_joined', before);
    expect(promoted.map((e) => e.recipient)).toEqual(expect.arrayContaining([a.email, admin.email, 'second.owner@people.example']));
    expect(promoted[0].text_body).toContain(`(made an owner by ${a.email})`);
    const row = await db().one('SELECT owner_since FROM users WHERE id = $1', [developer.id]);
    expect(Math.abs(row.owner_since.getTime() - clock.now().getTime())).toBeLessThan(5000);
  });
});

describe('the second factor of money out', () => {
  it('counts wrong codes for a disbursement apart from sign-in codes: ten of them never lock the owner out of signing in', async () => {
    const m = await merchant();
    const user = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
    const client = await signedIn(svc, user, clock);
    await db().none('INSERT INTO totp_recovery_codes (user_id, code_hash) VALUES ($1, $2)', [user.id, createHash('sha256').update('k3p9x-q2m7w').digest('hex')]);
    // every attempt below in one of the throttle's one-minute windows
    clock.advance(60_000 - (clock.now().getTime() % 60_000) + 1000);
    const body = { amount: 100, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('DASH') };
    for (let i = 0; i < 10; i++) expect((await client.post('/v1/admin/disbursements', { ...body, code: '000000' })).status).toBe(401);
    expect((await client.post('/v1/admin/disbursements', { ...body, code: '000000' })).status).toBe(429);
    // the same minute: signing in again, second factor included, still works
    const again = new SessionClient(svc);
    expect((await again.login(user.email, user.password)).body.data.state).toBe('totp_required');
    const second = await again.post('/v1/admin/session/totp', { recovery_code: 'k3p9x-q2m7w' });
    expect(second.status).toBe(200);
    expect((await again.get('/v1/admin/session')).body.data.state).toBe('active');
    // while the disbursements' own budget is still spent
    expect((await again.post('/v1/admin/disbursements', { ...body, code: totpCode(svc) })).status).toBe(429);
  });
});

/** An owner regenerates the token's secret (they have seen it now), and a second, seasoned owner with an authenticator. */
async function twoOwners(m: MerchantSetup) {
  const holder = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
  const other = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
  const h = await signedIn(svc, holder, clock);
  const regenerated = expectOk(await h.post(`/v1/admin/api-tokens/${m.apiTokenId}/regenerate`));
  return { holder, h, other, o: await signedIn(svc, other, clock), key: regenerated.api_key as string, secret: regenerated.api_secret as string };
}

/** A disbursement asked for through the API with the token's (regenerated) key and secret. */
async function askWith(key: string, secret: string, amount: number) {
  const res = await svc.merchant(await accessToken(svc, key, secret)).post('/v1/disbursements', {
    amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('PAY'),
  }, { headers: { 'secret-key': secret } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; gateway_reference: string; transaction_status: string };
}

/** The next 30-second step's code: every code is accepted once per person. */
const code = () => {
  clock.advance(30_000);
  return totpCode(svc);
};
const statusOf = async (reference: string) => db().one('SELECT status, decided_by_user_id, send_state FROM disbursements WHERE gateway_reference = $1', [reference]);

describe('who may approve', () => {
  it('not the owner who holds the API token\'s secret (created or last regenerated it): another owner approves what the token asks', async () => {
    const m = await merchant();
    const { holder, h, o, key, secret } = await twoOwners(m);
    expect(await db().one('SELECT secret_holder_user_id FROM api_tokens WHERE id = $1', [m.apiTokenId])).toEqual({ secret_holder_user_id: holder.id });
    const d = await askWith(key, secret, 1400);
    expect(d.transaction_status).toBe('PENDING_APPROVAL');
    // the holder is not asked by email to approve it; the other owner is
    const asked = await db().any("SELECT recipient FROM emails WHERE kind = 'disbursement_approval' AND text_body LIKE '%' || $1 || '%'", [d.gateway_reference]);
    expect(asked.map((e) => e.recipient)).not.toContain(holder.email);
    const own = await h.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: code() });
    expect([own.status, own.body.message]).toEqual([403, 'You hold the secret of the API token that asked for this disbursement (you created or last regenerated it): another owner must approve it']);
    expect(await statusOf(d.gateway_reference)).toEqual({ status: 'PENDING_APPROVAL', decided_by_user_id: null, send_state: 'held' });
    const approved = await o.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: code() });
    expect(approved.body.data.transaction_status).toBe('PENDING');
  });

  it('a second owner account: announced, and it approves only with a confirmed authenticator\'s code and after its waiting period', async () => {
    const m = await merchant();
    const first = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true });
    const f = await signedIn(svc, first, clock);
    const since = await lastEmail();
    expectOk(await f.post('/v1/admin/invitations', { email: `alias.${m.businessId}@people.example`, role: 'merchant_owner', business_id: m.businessId }));
    const token = await tokenFromOutbox(svc, `alias.${m.businessId}@people.example`, 'accept-invitation');
    expectOk(await svc.anon.post('/v1/admin/invitations/accept', { token, password: 'a long enough password' }));
    expect((await emailsOf('owner_joined', since)).map((e) => e.recipient)).toContain(first.email);
    const d = await askWith(m.apiKey, m.apiSecret, 1300);
    const alias = new SessionClient(svc);
    expectOk(await alias.login(`alias.${m.businessId}@people.example`, 'a long enough password'));
    // no authenticator: no approval
    const bare = await alias.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: '123456' });
    expect([bare.status, bare.body.code]).toEqual([403, 'FORBIDDEN']);
    // an enrolment only started is no authenticator either
    const started = expectOk(await alias.post('/v1/admin/me/totp'));
    const unconfirmed = await alias.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: currentCode(started.secret, clock.now()) });
    expect([unconfirmed.status, unconfirmed.body.code]).toEqual([403, 'FORBIDDEN']);
    clock.advance(30_000);
    expectOk(await alias.post('/v1/admin/me/totp/confirm', { code: currentCode(started.secret, clock.now()) }));
    // confirmed, but an owner of minutes: refused, and no code spent
    clock.advance(30_000);
    const fresh = await alias.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: currentCode(started.secret, clock.now()) });
    expect(fresh.status).toBe(403);
    expect(fresh.body.message).toMatch(/^A new owner approves disbursements from .* on \(72 hours after becoming an owner\)$/);
    expect(await statusOf(d.gateway_reference)).toMatchObject({ status: 'PENDING_APPROVAL', decided_by_user_id: null });
    // the deadline (24 hours) passes long before the wait does: a later one is approved once it is over
    clock.advance(73 * HOUR);
    const later = await askWith(m.apiKey, m.apiSecret, 1200);
    const again = new SessionClient(svc);
    expect((await again.login(`alias.${m.businessId}@people.example`, 'a long enough password')).body.data.state).toBe('totp_required');
    clock.advance(30_000);
    expectOk(await again.post('/v1/admin/session/totp', { code: currentCode(started.secret, clock.now()) }));
    clock.advance(30_000);
    const approved = await again.post(`/v1/admin/disbursements/${later.gateway_reference}/approve`, { code: currentCode(started.secret, clock.now()) });
    expect(approved.body.data.transaction_status).toBe('PENDING');
  });

  it('an authenticator whose enrolment was only started is none: neither a dashboard payout nor an approval, and nothing changes', async () => {
    const m = await merchant();
    const d = await askWith(m.apiKey, m.apiSecret, 1300);
    const user = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId });
    const o = await signedIn(svc, user);
    const started = expectOk(await o.post('/v1/admin/me/totp'));
    clock.advance(30_000);
    const payout = await o.post('/v1/admin/disbursements', {
      amount: 100, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('DASH'), code: currentCode(started.secret, clock.now()),
    });
    expect([payout.status, payout.body.code]).toEqual([403, 'FORBIDDEN']);
    clock.advance(30_000);
    const approval = await o.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: currentCode(started.secret, clock.now()) });
    expect([approval.status, approval.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(await db().one('SELECT count(*)::int AS n FROM disbursements WHERE business_id = $1', [m.businessId])).toEqual({ n: 1 });
    expect(await statusOf(d.gateway_reference)).toMatchObject({ status: 'PENDING_APPROVAL', decided_by_user_id: null });
  });

  it('nobody after the deadline: the approval is refused and the disbursement cancelled, its money back, never sent', async () => {
    const m = await merchant();
    const { o, key, secret } = await twoOwners(m);
    const fresh = await askWith(key, secret, 1500);
    await db().none("UPDATE disbursements SET approval_expires_at = $2 WHERE gateway_reference = $1", [fresh.gateway_reference, new Date(clock.now().getTime() - 1000)]);
    const late = await o.post(`/v1/admin/disbursements/${fresh.gateway_reference}/approve`, { code: code() });
    expect([late.status, late.body.code]).toEqual([400, 'INVALID_STATE']);
    expect(late.body.message).toMatch(/^The approval deadline \(.*\) has passed: the disbursement is cancelled and its money is back in the wallet$/);
    expect(await db().one('SELECT status, failure_reason, send_state, send_attempts, decided_by_user_id FROM disbursements WHERE gateway_reference = $1', [fresh.gateway_reference])).toEqual({
      status: 'CANCELLED', failure_reason: 'Not approved in time', send_state: 'settled', send_attempts: 0, decided_by_user_id: null,
    });
    expect(await db().one("SELECT count(*)::int AS n FROM journals j JOIN disbursements d ON d.id = j.disbursement_id WHERE d.gateway_reference = $1 AND j.kind = 'disbursement_return'", [fresh.gateway_reference])).toEqual({ n: 1 });
    const again = await o.post(`/v1/admin/disbursements/${fresh.gateway_reference}/approve`, { code: code() });
    expect(again.body.code).toBe('INVALID_STATE');
  });
});

describe('the audit log', () => {
  it('keeps the payee\'s number masked in the entries of a disbursement, as the owners\' emails do', async () => {
    const m = await merchant();
    const { o, key, secret } = await twoOwners(m);
    const d = await askWith(key, secret, 1100);
    expectOk(await o.post(`/v1/admin/disbursements/${d.gateway_reference}/approve`, { code: code() }));
    const entries = await db().any("SELECT action, before, after FROM audit_log WHERE target_type = 'disbursement' AND target_id = $1 ORDER BY id", [d.gateway_reference]);
    expect(entries.map((e) => e.action)).toEqual(['createDisbursement', 'approveDisbursement']);
    for (const e of entries) expect(JSON.stringify(e)).not.toContain('256772123456');
    expect(entries.map((e) => e.after.account_number)).toEqual(['******3456', '******3456']);
  });
});

describe('every money-out decision by every actor (the whole-surface rule)', () => {
  type Actor = 'requester' | 'token holder' | 'fresh owner' | 'owner without a second factor' | 'other owner' | 'developer' | 'viewer' | 'support' | 'operator' | 'another business';
  const ACTORS: Actor[] = ['requester', 'token holder', 'fresh owner', 'owner without a second factor', 'other owner', 'developer', 'viewer', 'support', 'operator', 'another business'];
  let m: MerchantSetup;
  let key: string;
  let secret: string;
  const people = new Map<Actor, { id: number; client: SessionClient; totp: boolean }>();

  beforeAll(async () => {
    m = await merchant();
    const other = await merchant();
    const make = async (actor: Actor, o: Parameters<typeof createUser>[1]) => {
      const user = await createUser(svc, o);
      people.set(actor, { id: user.id, client: await signedIn(svc, user, clock), totp: o.totp === true });
      return user;
    };
    await make('requester', { role: 'merchant_owner', business_id: m.businessId, totp: true });
    await make('token holder', { role: 'merchant_owner', business_id: m.businessId, totp: true });
    await make('fresh owner', { role: 'merchant_owner', business_id: m.businessId, totp: true, fresh: true });
    await make('owner without a second factor', { role: 'merchant_owner', business_id: m.businessId });
    await make('other owner', { role: 'merchant_owner', business_id: m.businessId, totp: true });
    await make('developer', { role: 'merchant_developer', business_id: m.businessId });
    await make('viewer', { role: 'merchant_viewer', business_id: m.businessId });
    await make('support', { role: 'operator_support', totp: true });
    await make('operator', { role: 'operator_admin', totp: true });
    await make('another business', { role: 'merchant_owner', business_id: other.businessId, totp: true });
    const regenerated = expectOk((await (people.get('token holder') as { client: SessionClient }).client.post(`/v1/admin/api-tokens/${m.apiTokenId}/regenerate`)));
    [key, secret] = [regenerated.api_key, regenerated.api_secret];
  }, 120_000);

  const as = (actor: Actor) => people.get(actor) as { id: number; client: SessionClient; totp: boolean };
  /** One waiting for approval: asked for in the dashboard by the requester (for the requester's case), else through the API token. */
  async function waiting(actor: Actor): Promise<string> {
    if (actor !== 'requester') return (await askWith(key, secret, 1100)).gateway_reference;
    const res = await as('requester').client.post('/v1/admin/disbursements', {
      amount: 1100, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('DASH'), code: code(),
    });
    expect(res.body.data.transaction_status).toBe('PENDING_APPROVAL');
    return res.body.data.gateway_reference;
  }
  const shape = (res: { status: number; body: { code: unknown } }) => `${res.status} ${res.body.code}`;
  /** What a refusal must leave as it was: the business's guards and what waits. */
  const state = async () =>
    db().one(
      `SELECT (SELECT row_to_json(w) FROM (SELECT disbursement_limit_minor, disbursement_daily_limit_minor, disbursement_approval_threshold_minor FROM wallets WHERE business_id = $1) w) AS wallet,
              (SELECT ip_allowlist::text[] FROM api_tokens WHERE id = $2) AS allowlist,
              (SELECT disbursements_frozen FROM businesses WHERE id = $1) AS frozen,
              (SELECT count(*)::int FROM guard_changes WHERE business_id = $1) AS scheduled`,
      [m.businessId, m.apiTokenId],
    );

  // the documented answers (docs/contract/disbursements.md, "Four eyes"; docs/contract/disbursements-dashboard.md, "The settings")
  const OK = '200 200';
  const ANSWERS: Record<Actor, Record<'approve' | 'reject' | 'threshold' | 'allowlist' | 'limits' | 'freeze', string>> = {
    requester: { approve: '403 FORBIDDEN', reject: OK, threshold: OK, allowlist: OK, limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    'token holder': { approve: '403 FORBIDDEN', reject: OK, threshold: OK, allowlist: OK, limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    'fresh owner': { approve: '403 FORBIDDEN', reject: OK, threshold: OK, allowlist: OK, limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    'owner without a second factor': { approve: '403 FORBIDDEN', reject: OK, threshold: OK, allowlist: OK, limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    'other owner': { approve: OK, reject: OK, threshold: OK, allowlist: OK, limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    developer: { approve: '403 FORBIDDEN', reject: '403 FORBIDDEN', threshold: '403 FORBIDDEN', allowlist: '403 FORBIDDEN', limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    viewer: { approve: '403 FORBIDDEN', reject: '403 FORBIDDEN', threshold: '403 FORBIDDEN', allowlist: '403 FORBIDDEN', limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    support: { approve: '403 FORBIDDEN', reject: '403 FORBIDDEN', threshold: '403 FORBIDDEN', allowlist: '403 FORBIDDEN', limits: '403 FORBIDDEN', freeze: '403 FORBIDDEN' },
    operator: { approve: '403 FORBIDDEN', reject: '403 FORBIDDEN', threshold: OK, allowlist: OK, limits: OK, freeze: OK },
    'another business': { approve: '404 NOT_FOUND', reject: '404 NOT_FOUND', threshold: '404 NOT_FOUND', allowlist: '404 NOT_FOUND', limits: '404 NOT_FOUND', freeze: '403 FORBIDDEN' },
  };

  it.each(ACTORS)('approve and reject: %s', async (actor) => {
    const who = as(actor);
    for (const decision of ['approve', 'reject'] as const) {
      const reference = await waiting(actor);
      // (the approved ones before it move on at the simulator meanwhile: only this one is compared)
      const before = await statusOf(reference);
      const res = await who.client.post(`/v1/admin/disbursements/${reference}/${decision}`, decision === 'approve' ? { code: code() } : {});
      expect({ actor, decision, answer: shape(res) }).toEqual({ actor, decision, answer: ANSWERS[actor][decision] });
      if (res.status !== 200) expect(await statusOf(reference)).toEqual(before);
      else expect(await statusOf(reference)).toMatchObject({ status: decision === 'approve' ? 'PENDING' : 'CANCELLED', decided_by_user_id: who.id });
    }
  });

  it.each(ACTORS)('loosening a guard (threshold, allowlist, limits) and the freeze: %s', async (actor) => {
    const who = as(actor).client;
    const changes = {
      threshold: () => who.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_approval_threshold: 9000 }),
      allowlist: () => who.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: null }),
      limits: () => who.patch(`/v1/admin/businesses/${m.businessId}/wallets/UGX`, { disbursement_limit: 50000 }),
      freeze: () => who.patch(`/v1/admin/businesses/${m.businessId}`, { disbursements_frozen: true }),
    };
    for (const [change, run] of Object.entries(changes) as [keyof typeof changes, () => Promise<{ status: number; body: { code: unknown; data: { scheduled_changes?: unknown[] } } }>][]) {
      // every case starts from the same guards, nothing waiting
      await db().none("UPDATE guard_changes SET withdrawn_at = now() WHERE business_id = $1 AND applied_at IS NULL AND withdrawn_at IS NULL", [m.businessId]);
      await db().none("UPDATE wallets SET disbursement_approval_threshold_minor = 100000, disbursement_limit_minor = 2000000 WHERE business_id = $1", [m.businessId]);
      await db().none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32}' WHERE id = $1", [m.apiTokenId]);
      await db().none('UPDATE businesses SET disbursements_frozen = false WHERE id = $1', [m.businessId]);
      const before = await state();
      const res = await run();
      expect({ actor, change, answer: shape(res) }).toEqual({ actor, change, answer: ANSWERS[actor][change] });
      const after = await state();
      if (res.status !== 200) {
        expect(after).toEqual(before);
      } else if (change === 'freeze') {
        // tightening: at once
        expect(after.frozen).toBe(true);
      } else {
        // loosening: nothing changes now, one change waits for its notice
        expect({ ...after, scheduled: after.scheduled - before.scheduled }).toEqual({ ...before, scheduled: 1 });
        expect(res.body.data.scheduled_changes).toHaveLength(1);
      }
    }
  });
});

describe('in live', () => {
  let live: TestService;
  beforeAll(async () => {
    live = await startTestService({ now: clock.now, env: { APP_ENV: 'live', DISBURSEMENT_GUARD_NOTICE_HOURS: '48' } });
  }, 180_000);
  afterAll(async () => {
    await live?.close();
  });

  it('refuses an allowlist that lets almost anyone in, and a token\'s first list waits for its notice, every owner told', async () => {
    const business = expectOk(await live.admin.post('/v1/admin/businesses', { name: 'Live Guards', default_currency: 'UGX' }), 'createBusiness');
    expectOk(await live.admin.post(`/v1/admin/businesses/${business.id}/verify`, { note: 'documents seen' }));
    const user = await createUser(live, { role: 'merchant_owner', business_id: business.id });
    const o = await signedIn(live, user);
    const tokenBody = { notification_email: 'ops@live.example', webhook_url: 'https://8.8.8.8/hooks', webhook_hash: 'whsec-live-guards-0123456789' };
    for (const list of [['0.0.0.0/0'], ['::/0'], ['10.0.0.0/8'], ['10.0.0.0/08']]) {
      const refused = await o.post(`/v1/admin/businesses/${business.id}/api-tokens`, { ...tokenBody, ip_allowlist: list });
      expect({ list, status: refused.status, field: refused.body.data?.[0]?.field }).toEqual({ list, status: 400, field: 'ip_allowlist.0' });
    }
    expect((await live.database.db.one('SELECT count(*)::int AS n FROM api_tokens WHERE business_id = $1', [business.id])).n).toBe(0);
    const created = await o.post(`/v1/admin/businesses/${business.id}/api-tokens`, { ...tokenBody, ip_allowlist: ['127.0.0.1/32'] });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ ip_allowlist: null, scheduled_changes: [{ field: 'ip_allowlist', value: ['127.0.0.1/32'], requested_by: user.email }] });
    const token = created.body.data as { id: number; api_key: string; api_secret: string };
    expect((await o.patch(`/v1/admin/api-tokens/${token.id}`, { ip_allowlist: ['0.0.0.0/0'] })).status).toBe(400);
    const list = async () => live.merchant(await accessToken(live, token.api_key, token.api_secret)).get('/v1/disbursements', { headers: { 'secret-key': token.api_secret } });
    expect((await list()).body.code).toBe('IP_NOT_ALLOWED');
    expect(await live.database.db.any("SELECT recipient FROM emails WHERE kind = 'guard_change_scheduled'")).toEqual([{ recipient: user.email }]);
    clock.advance(49 * HOUR);
    expect(await live.services.guards.applyDue()).toBe(1);
    await eventually(async () => ((await list()).status === 200 ? true : undefined), 5000, 'the allowlist in force');
  });
});
