// Proves dashboard sessions over HTTP: sign-in sets an HttpOnly SameSite cookie with a new id each time, wrong credentials all look alike, sign-out and the idle and absolute timeouts end a session, changes without the CSRF token are refused, sign-in is throttled, a disabled user is out.
import { createHash } from 'node:crypto';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, cookieOf, createUser, PASSWORD, SessionClient, signedIn } from '../helpers/users';
import type { TestUser } from '../helpers/users';
import { createBusiness } from '../helpers/merchants';

const clock = new Clock();
let svc: TestService;
let owner: TestUser;
let businessId: number;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  businessId = (await createBusiness(svc)).id;
  owner = await createUser(svc, { role: 'merchant_owner', business_id: businessId });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

describe('login', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie (not Secure on http://127.0.0.1) and returns the session with its CSRF token', async () => {
    const client = new SessionClient(svc);
    const res = await client.login(owner.email.toUpperCase(), PASSWORD);
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie') as string;
    expect(setCookie).toMatch(/^pc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(res.body.data).toMatchObject({ state: 'active', user: { id: owner.id, email: owner.email, role: 'merchant_owner', business_id: businessId } });
    expect(res.body.data.csrf_token).toHaveLength(43);
    // only a hash of the id is stored
    const cookie = cookieOf(res) as string;
    const stored = await svc.services.db.any('SELECT id_hash FROM user_sessions WHERE user_id = $1', [owner.id]);
    expect(stored.map((r) => r.id_hash)).toContain(createHash('sha256').update(cookie).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(cookie);
  });

  it('issues a new session id at every sign-in, whatever cookie the browser already had', async () => {
    const client = new SessionClient(svc);
    await client.login(owner.email, PASSWORD);
    const first = client.cookie;
    const again = await client.login(owner.email, PASSWORD);
    expect(again.status).toBe(200);
    expect(client.cookie).not.toBe(first);
  });

  it('answers a wrong password, an unknown email and a disabled user with the same 401, and sets no cookie', async () => {
    const disabled = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
    await svc.services.db.none('UPDATE users SET disabled_at = now() WHERE id = $1', [disabled.id]);
    for (const [email, password] of [
      [owner.email, 'wrong password here'],
      ['nobody@people.example', PASSWORD],
      [disabled.email, PASSWORD],
    ]) {
      const res = await new SessionClient(svc).login(email, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', status: 'error', message: 'The email or the password is wrong', data: null });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a malformed body with every broken field and starts no session', async () => {
    const before = await svc.services.db.one('SELECT count(*)::int AS n FROM user_sessions');
    const res = await new SessionClient(svc).post('/v1/admin/session', { email: 'not-an-email', password: '', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(await svc.services.db.one('SELECT count(*)::int AS n FROM user_sessions')).toEqual(before);
  });
});

describe('getSession and logout', () => {
  it('reads the session, then signs out: the cookie is cleared and the old id no longer works', async () => {
    const client = await signedIn(svc, owner);
    const me = await client.get('/v1/admin/session');
    expect(me.status).toBe(200);
    expect(me.body.data.user.email).toBe(owner.email);
    const old = client.cookie;
    const out = await client.delete('/v1/admin/session');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^pc_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    client.cookie = old;
    expect((await client.get('/v1/admin/session')).status).toBe(401);
  });

  it('answers 401 without a cookie or with a made-up one', async () => {
    const client = new SessionClient(svc);
    expect((await client.get('/v1/admin/session')).status).toBe(401);
    client.cookie = 'A'.repeat(43);
    expect((await client.get('/v1/admin/session')).status).toBe(401);
    expect((await client.get(`/v1/admin/businesses/${businessId}`)).status).toBe(401);
  });
});

describe('CSRF', () => {
  it('refuses a change made with the cookie but without the X-CSRF-Token header, or with a wrong one, and changes nothing', async () => {
    const client = await signedIn(svc, owner);
    const body = { email: 'csrf.target@people.example', role: 'merchant_viewer', business_id: businessId };
    const missing = await client.post('/v1/admin/invitations', body, { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('CSRF_FAILED');
    const wrong = await client.post('/v1/admin/invitations', body, { csrf: false, headers: { 'x-csrf-token': 'x'.repeat(43) } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('CSRF_FAILED');
    expect(await svc.services.db.any('SELECT 1 FROM invitations WHERE email = $1', [body.email])).toHaveLength(0);
    const logout = await client.delete('/v1/admin/session', { csrf: false });
    expect(logout.status).toBe(403);
    expect((await client.get('/v1/admin/session')).status).toBe(200);
    // the same change with the token goes through
    expect((await client.post('/v1/admin/invitations', body)).status).toBe(200);
  });

  it('does not ask the operator key for a CSRF token', async () => {
    const res = await svc.admin.get(`/v1/admin/businesses/${businessId}`);
    expect(res.status).toBe(200);
    expect((await svc.admin.post(`/v1/admin/businesses/${businessId}/go-live-request`, { note: 'by key' })).status).toBe(200);
  });
});

describe('timeouts', () => {
  it('ends a session idle for longer than SESSION_IDLE_MINUTES (30)', async () => {
    const client = await signedIn(svc, owner);
    clock.advance(29 * 60_000);
    expect((await client.get('/v1/admin/session')).status).toBe(200);
    clock.advance(29 * 60_000); // each request moved the idle expiry
    expect((await client.get('/v1/admin/session')).status).toBe(200);
    clock.advance(30 * 60_000 + 1000);
    const res = await client.get('/v1/admin/session');
    expect(res.status).toBe(401);
    expect(await svc.services.db.one('SELECT count(*)::int AS n FROM user_sessions WHERE csrf_token = $1', [client.csrf])).toEqual({ n: 0 });
  });

  it('ends a session SESSION_ABSOLUTE_HOURS (12) after sign-in, however busy', async () => {
    const client = await signedIn(svc, owner);
    const started = (await client.get('/v1/admin/session')).body.data;
    for (let i = 0; i < 24; i++) {
      clock.advance(29 * 60_000);
      expect((await client.get('/v1/admin/session')).status).toBe(200);
    }
    expect(started.absolute_expires_at > started.idle_expires_at).toBe(true);
    clock.advance(25 * 60_000); // 24 * 29 + 25 minutes > 12 hours
    expect((await client.get('/v1/admin/session')).status).toBe(401);
  });

  it("deletes a user's ended sessions at its next sign-in, even those never presented again", async () => {
    const user = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
    await signedIn(svc, user);
    clock.advance(31 * 60_000);
    await signedIn(svc, user);
    expect(await svc.services.db.one('SELECT count(*)::int AS n FROM user_sessions WHERE user_id = $1', [user.id])).toEqual({ n: 1 });
  });
});

describe('throttling', () => {
  it('refuses sign-in with 429 and Retry-After after 10 failures in a minute for one email, even with the right password', async () => {
    const target = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
    clock.advance(60_000 - (clock.now().getTime() % 60_000) + 100); // start of a fresh window
    for (let i = 0; i < 10; i++) expect((await new SessionClient(svc).login(target.email, 'wrong password here')).status).toBe(401);
    const refused = await new SessionClient(svc).login(target.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('set-cookie')).toBeNull();
    clock.advance(60_000);
    expect((await new SessionClient(svc).login(target.email, PASSWORD)).status).toBe(200);
  });
});
