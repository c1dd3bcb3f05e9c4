// Proves every role rule at the HTTP level with direct calls: support reads and re-sends but changes nothing (403), a merchant user reaches only its own business (anything else is 404, lists are confined), developers manage tokens but not people, owners manage their team without granting above their own role and cannot leave their business without an active owner, an invitation does not tell a business that an email has an account elsewhere, and the operator key and admins keep everything.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { snapshot, tokenBody } from '../helpers/merchants';
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { Clock, createUser, readable, signedIn } from '../helpers/users';
import type { SessionClient, TestUser } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let a: MerchantSetup;
let b: MerchantSetup;
let refA: string;
let refB: string;
const users: Record<string, TestUser> = {};
const as: Record<string, SessionClient> = {};

/** A collection paid through the merchant API and completed by the sandbox simulator. */
async function completedCollection(m: MerchantSetup): Promise<string> {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000099' }));
  const ref = res.body.data.gateway_reference as string;
  const done = await m.client.post(`/v1/sandbox/collections/${ref}/simulate`, { outcome: 'COMPLETED' });
  if (done.status !== 200) throw new Error(`simulate: ${done.text}`);
  return ref;
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  a = await setupMerchant(svc, { name: 'Business A', wallets: ['UGX'], webhookUrl: 'http://127.0.0.1:9/a' });
  b = await setupMerchant(svc, { name: 'Business B', wallets: ['UGX'], webhookUrl: 'http://127.0.0.1:9/b' });
  refA = await completedCollection(a);
  refB = await completedCollection(b);
  users.admin = await createUser(svc, { role: 'operator_admin', totp: true });
  users.support = await createUser(svc, { role: 'operator_support', totp: true });
  users.ownerA = await createUser(svc, { role: 'merchant_owner', business_id: a.businessId });
  users.devA = await createUser(svc, { role: 'merchant_developer', business_id: a.businessId });
  users.viewerA = await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId });
  users.ownerB = await createUser(svc, { role: 'merchant_owner', business_id: b.businessId });
  for (const [name, user] of Object.entries(users)) as[name] = await signedIn(svc, user, clock);
}, 180_000); // two merchants, six people signed in: well over a minute on a loaded embedded database
afterAll(async () => {
  await svc?.close();
});

/** Every change an operator may make, as [method, path, body]. */
const changes = (): [string, string, unknown][] => [
  ['POST', '/v1/admin/businesses', { name: 'New Shop', default_currency: 'UGX' }],
  ['PATCH', `/v1/admin/businesses/${a.businessId}`, { card_settlement_days: 3 }],
  ['POST', `/v1/admin/businesses/${a.businessId}/verify`, { verified_by: 'someone' }],
  ['POST', `/v1/admin/businesses/${a.businessId}/wallets`, { currency: 'USD' }],
  ['POST', `/v1/admin/businesses/${a.businessId}/mids`, { business_name: 'A', service_type: 'sandbox', payment_method: 'CARD', currency: 'UGX' }],
  ['POST', `/v1/admin/businesses/${a.businessId}/api-tokens`, tokenBody()],
  ['PATCH', `/v1/admin/api-tokens/${a.apiTokenId}`, { email_user: true }],
  ['POST', `/v1/admin/api-tokens/${a.apiTokenId}/regenerate`, undefined],
  ['DELETE', `/v1/admin/api-tokens/${a.apiTokenId}`, undefined],
  ['PUT', '/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3800 }],
  ['POST', '/v1/admin/card-keys/rotate', undefined],
  ['POST', '/v1/admin/invitations', { email: 'new.person@people.example', role: 'merchant_viewer', business_id: a.businessId }],
  ['PATCH', `/v1/admin/users/${users.viewerA.id}`, { name: 'Renamed' }],
  ['POST', `/v1/admin/businesses/${a.businessId}/go-live-request`, { note: 'please' }],
];

async function call(client: SessionClient, method: string, path: string, body?: unknown) {
  return client.request(method, path, body);
}

describe('operator support', () => {
  it('reads every list and record', async () => {
    for (const path of [
      '/v1/admin/businesses',
      `/v1/admin/businesses/${b.businessId}`,
      `/v1/admin/businesses/${b.businessId}/api-tokens`,
      `/v1/admin/businesses/${b.businessId}/mids`,
      `/v1/admin/businesses/${b.businessId}/balances`,
      '/v1/admin/collections',
      `/v1/admin/collections/${refB}`,
      `/v1/admin/collections/${refB}/notifications`,
      `/v1/admin/collections/${refB}/refunds`,
      '/v1/admin/webhooks/failing',
      '/v1/admin/fx-rates',
      '/v1/admin/users',
      '/v1/admin/invitations',
      '/v1/admin/go-live-requests',
    ]) {
      expect([path, (await as.support.get(path)).status]).toEqual([path, 200]);
    }
  });

  it('re-sends a webhook', async () => {
    const res = await as.support.post(`/v1/admin/collections/${refB}/notify`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('accepted');
  });

  it('is refused every change with 403 FORBIDDEN, and the audit log, and nothing changes', async () => {
    const before = await snapshot(svc);
    for (const [method, path, body] of changes()) {
      const res = await call(as.support, method, path, body);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, 'FORBIDDEN']);
    }
    expect((await as.support.get('/v1/admin/audit-log')).status).toBe(403);
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('merchant viewer', () => {
  it('reads its own business only: another business, its tokens, collections and logs are 404', async () => {
    expect((await as.viewerA.get(`/v1/admin/businesses/${a.businessId}`)).status).toBe(200);
    expect((await as.viewerA.get(`/v1/admin/businesses/${a.businessId}/balances`)).status).toBe(200);
    expect((await as.viewerA.get(`/v1/admin/collections/${refA}`)).status).toBe(200);
    expect((await as.viewerA.get(`/v1/admin/collections/${refA}/refunds`)).status).toBe(200);
    for (const path of [
      `/v1/admin/businesses/${b.businessId}`,
      `/v1/admin/businesses/${b.businessId}/api-tokens`,
      `/v1/admin/businesses/${b.businessId}/wallets`,
      `/v1/admin/businesses/${b.businessId}/balances`,
      `/v1/admin/businesses/${b.businessId}/certification`,
      `/v1/admin/collections/${refB}`,
      `/v1/admin/collections/${refB}/notifications`,
      `/v1/admin/collections/${refB}/refunds`,
      `/v1/admin/collections?business_id=${b.businessId}`,
      '/v1/admin/businesses/999999',
    ]) {
      const res = await as.viewerA.get(path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
  });

  it('sees only its own collections in the list, with or without its business_id', async () => {
    for (const path of ['/v1/admin/collections', `/v1/admin/collections?business_id=${a.businessId}`]) {
      const res = await as.viewerA.get(path);
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: { business_id: number }) => c.business_id)).toEqual([a.businessId]);
    }
  });

  it('is refused operator-only reads and every change', async () => {
    for (const path of ['/v1/admin/businesses', `/v1/admin/businesses/${a.businessId}/mids`, '/v1/admin/webhooks/failing', '/v1/admin/go-live-requests', '/v1/admin/users', '/v1/admin/audit-log']) {
      expect([path, (await as.viewerA.get(path)).status]).toEqual([path, 403]);
    }
    const before = await snapshot(svc);
    for (const [method, path, body] of changes()) {
      const res = await call(as.viewerA, method, path, body);
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
    expect((await as.viewerA.post(`/v1/admin/collections/${refA}/notify`)).status).toBe(403);
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('merchant developer', () => {
  it('manages its own business API tokens and re-sends its webhooks, but not another business and not people', async () => {
    const created = await as.devA.post(`/v1/admin/businesses/${a.businessId}/api-tokens`, tokenBody());
    expect(created.status).toBe(200);
    expect(created.body.data.api_secret).toMatch(/^sk_sandbox_/);
    expect((await as.devA.patch(`/v1/admin/api-tokens/${created.body.data.id}`, { email_merchant: true })).status).toBe(200);
    expect((await as.devA.post(`/v1/admin/collections/${refA}/notify`)).status).toBe(200);

    expect((await as.devA.patch(`/v1/admin/api-tokens/${b.apiTokenId}`, { email_merchant: true })).status).toBe(404);
    expect((await as.devA.post(`/v1/admin/api-tokens/${b.apiTokenId}/regenerate`)).status).toBe(404);
    expect((await as.devA.delete(`/v1/admin/api-tokens/${b.apiTokenId}`)).status).toBe(404);
    expect((await as.devA.post(`/v1/admin/businesses/${b.businessId}/api-tokens`, tokenBody())).status).toBe(404);
    expect((await as.devA.post(`/v1/admin/collections/${refB}/notify`)).status).toBe(404);
    expect((await as.devA.post('/v1/admin/invitations', { email: 'x.y@people.example', role: 'merchant_viewer', business_id: a.businessId })).status).toBe(403);
    expect((await as.devA.patch(`/v1/admin/users/${users.devA.id}`, { role: 'merchant_owner' })).status).toBe(403);
    expect((await as.devA.patch(`/v1/admin/businesses/${a.businessId}`, { card_settlement_days: 1 })).status).toBe(403);
    await as.devA.delete(`/v1/admin/api-tokens/${created.body.data.id}`);
  });
});

describe('merchant owner', () => {
  it('invites and manages its own team, never above its own role or outside its business', async () => {
    const invite = await as.ownerA.post('/v1/admin/invitations', { email: 'team.member@people.example', role: 'merchant_developer', business_id: a.businessId });
    expect(invite.status).toBe(200);
    const operator = await as.ownerA.post('/v1/admin/invitations', { email: 'sneaky@people.example', role: 'operator_admin' });
    expect(operator.status).toBe(403);
    const elsewhere = await as.ownerA.post('/v1/admin/invitations', { email: 'other@people.example', role: 'merchant_viewer', business_id: b.businessId });
    expect(elsewhere.status).toBe(404);

    expect((await as.ownerA.patch(`/v1/admin/users/${users.viewerA.id}`, { role: 'merchant_developer' })).status).toBe(200);
    expect((await as.ownerA.patch(`/v1/admin/users/${users.viewerA.id}`, { role: 'merchant_viewer' })).status).toBe(200);
    const upgrade = await as.ownerA.patch(`/v1/admin/users/${users.ownerA.id}`, { role: 'operator_admin' });
    expect(upgrade.status).toBe(400);
    expect(upgrade.body.code).toBe('VALIDATION_ERROR');
    expect((await as.ownerA.patch(`/v1/admin/users/${users.ownerB.id}`, { name: 'x' })).status).toBe(404);
    expect((await as.ownerA.patch(`/v1/admin/users/${users.admin.id}`, { disabled: true })).status).toBe(404);

    const team = await as.ownerA.get('/v1/admin/users');
    expect(team.status).toBe(200);
    expect(team.body.data.map((u: { business_id: number }) => u.business_id)).toEqual(team.body.data.map(() => a.businessId));
    expect((await as.ownerA.get(`/v1/admin/users?business_id=${b.businessId}`)).status).toBe(404);
    const invitations = await as.ownerA.get('/v1/admin/invitations');
    expect(invitations.body.data.map((i: { email: string }) => i.email)).toEqual(['team.member@people.example']);
  });

  it('asks to go live for its own business only; the operator sees the request until it verifies the business', async () => {
    expect((await as.ownerA.post(`/v1/admin/businesses/${b.businessId}/go-live-request`, { note: 'x' })).status).toBe(404);
    expect((await as.devA.post(`/v1/admin/businesses/${a.businessId}/go-live-request`, { note: 'x' })).status).toBe(403);
    const asked = await as.ownerA.post(`/v1/admin/businesses/${a.businessId}/go-live-request`, { note: 'All test cases run' });
    expect(asked.status).toBe(200);
    expect(asked.body.data).toMatchObject({ business_id: a.businessId, business_name: 'Business A', requested_by: users.ownerA.email, note: 'All test cases run', verified_at: null });
    const ids = async () => (await as.support.get('/v1/admin/go-live-requests')).body.data.map((r: { business_id: number }) => r.business_id);
    expect(await ids()).toContain(a.businessId);
    const verified = await as.admin.post(`/v1/admin/businesses/${a.businessId}/verify`, { verified_by: 'somebody else' });
    expect(verified.body.data.verified_by).toBe(users.admin.email);
    expect(await ids()).not.toContain(a.businessId);
    expect((await as.ownerA.post(`/v1/admin/businesses/${a.businessId}/go-live-request`, { note: 'again' })).status).toBe(400);
  });
});

describe('operator admin', () => {
  it('may grant any role, but the last active admin cannot be demoted or disabled', async () => {
    const invite = await as.admin.post('/v1/admin/invitations', { email: 'support.two@people.example', role: 'operator_support' });
    expect(invite.status).toBe(200);
    expect(invite.body.data).toMatchObject({ role: 'operator_support', business_id: null, invited_by: users.admin.email });
    const missingBusiness = await as.admin.post('/v1/admin/invitations', { email: 'm@people.example', role: 'merchant_viewer' });
    expect(missingBusiness.status).toBe(400);
    // the first operator made at start-up is also an admin: disable it, then the test admin is the last one
    const others = await svc.services.db.any("SELECT id FROM users WHERE role = 'operator_admin' AND id <> $1", [users.admin.id]);
    for (const o of others) expect((await as.admin.patch(`/v1/admin/users/${o.id}`, { disabled: true })).status).toBe(200);
    const demote = await as.admin.patch(`/v1/admin/users/${users.admin.id}`, { role: 'operator_support' });
    expect(demote.status).toBe(400);
    expect(demote.body.code).toBe('INVALID_STATE');
    expect((await as.admin.patch(`/v1/admin/users/${users.admin.id}`, { disabled: true })).status).toBe(400);
  });

  it('disabling a user ends its sessions at once', async () => {
    const victim = await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId });
    const session = await signedIn(svc, victim);
    expect((await session.get('/v1/admin/session')).status).toBe(200);
    expect((await as.admin.patch(`/v1/admin/users/${victim.id}`, { disabled: true })).status).toBe(200);
    expect((await session.get('/v1/admin/session')).status).toBe(401);
  });
});

describe('a business is never left without an active owner by its own people', () => {
  it('refuses the last active owner disabling itself or giving up the owner role; a second owner lifts it; an operator may still close the business down', async () => {
    const shop = await setupMerchant(svc, { name: 'One Owner Shop', wallets: ['UGX'], webhookUrl: 'http://127.0.0.1:9/one' });
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const session = await signedIn(svc, owner, clock);
    const before = await svc.services.db.one('SELECT role, disabled_at FROM users WHERE id = $1', [owner.id]);
    for (const patch of [{ disabled: true }, { role: 'merchant_developer' }]) {
      const refused = await session.patch(`/v1/admin/users/${owner.id}`, patch);
      expect([refused.status, refused.body.code, refused.body.message]).toEqual([400, 'INVALID_STATE', 'This is the last active owner of the business; make another one first']);
    }
    expect(await svc.services.db.one('SELECT role, disabled_at FROM users WHERE id = $1', [owner.id])).toEqual(before);
    expect((await session.get('/v1/admin/session')).status).toBe(200);

    // a disabled second owner does not count; an active one does
    const second = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    await svc.services.db.none('UPDATE users SET disabled_at = now() WHERE id = $1', [second.id]);
    expect((await session.patch(`/v1/admin/users/${owner.id}`, { role: 'merchant_viewer' })).status).toBe(400);
    await svc.services.db.none('UPDATE users SET disabled_at = NULL WHERE id = $1', [second.id]);
    expect((await session.patch(`/v1/admin/users/${owner.id}`, { role: 'merchant_viewer' })).body.data).toMatchObject({ role: 'merchant_viewer' });

    // the operator may disable the last owner (a business closed down)
    expect((await as.admin.patch(`/v1/admin/users/${second.id}`, { disabled: true })).status).toBe(200);
  });
});

describe('inviting an email that already has an account', () => {
  const mailTo = async (to: string, phrase: string) =>
    eventually(async () => {
      const dir = path.join(svc.config.dataDir, 'mail');
      if (!existsSync(dir)) return undefined;
      const texts = readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => readable(readFileSync(path.join(dir, f), 'utf8')));
      return texts.find((t) => t.includes(`To: ${to}`) && t.includes(phrase));
    }, 20_000, `an email to ${to}`);

  it('answers a merchant owner as for a new email when the account is in another business, and tells the address owner instead of sending a link', async () => {
    const fresh = await as.ownerA.post('/v1/admin/invitations', { email: 'brand.new.person@people.example', role: 'merchant_viewer', business_id: a.businessId });
    const elsewhere = await as.ownerA.post('/v1/admin/invitations', { email: users.ownerB.email, role: 'merchant_viewer', business_id: a.businessId });
    expect([elsewhere.status, elsewhere.body.message]).toEqual([fresh.status, fresh.body.message]);
    expect(Object.keys(elsewhere.body.data).sort()).toEqual(Object.keys(fresh.body.data).sort());
    expect(elsewhere.body.data).toMatchObject({ email: users.ownerB.email, role: 'merchant_viewer', business_id: a.businessId, accepted_at: null });

    const notice = await mailTo(users.ownerB.email, 'already belongs to a dashboard account');
    expect(notice).not.toContain('accept-invitation?token=');
    expect(await svc.services.db.one('SELECT role, business_id FROM users WHERE id = $1', [users.ownerB.id])).toEqual({ role: 'merchant_owner', business_id: b.businessId });
    expect(await mailTo('brand.new.person@people.example', 'accept-invitation?token=')).toBeDefined();
  });

  it('says so to whoever can see the account anyway: an owner for its own team, an operator for anyone', async () => {
    const own = await as.ownerA.post('/v1/admin/invitations', { email: users.devA.email, role: 'merchant_viewer', business_id: a.businessId });
    expect([own.status, own.body.code, own.body.message]).toEqual([400, 'INVALID_STATE', 'A user already has this email']);
    const byOperator = await as.admin.post('/v1/admin/invitations', { email: users.ownerB.email, role: 'merchant_viewer', business_id: a.businessId });
    expect([byOperator.status, byOperator.body.message]).toEqual([400, 'A user already has this email']);
  });
});
