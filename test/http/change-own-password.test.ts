// Proves changeOwnPassword over HTTP: the current password is required and a wrong one changes nothing (and counts towards the sign-in limit, though its change is rolled back), every role may change its own, the new password signs in and the old does not, the caller's session goes on under a new id while the person's other sessions end, and the audit entry holds no password.
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createBusiness } from '../helpers/merchants';
import { Clock, createUser, SessionClient, signedIn } from '../helpers/users';
import type { TestUser } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let businessId: number;
const NEW_PASSWORD = 'four new words for twenty-six';

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  businessId = (await createBusiness(svc, { name: 'Password Shop' })).id;
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const change = (client: SessionClient, current_password: string, new_password = NEW_PASSWORD) => client.post('/v1/admin/me/password', { current_password, new_password });
const hashOf = async (user: TestUser) => (await svc.services.db.one('SELECT password_hash FROM users WHERE id = $1', [user.id])).password_hash;

it('changes the password: the new one signs in, the old one does not; this session goes on under a new id, the others end', async () => {
  const owner = await createUser(svc, { role: 'merchant_owner', business_id: businessId });
  const colleague = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: businessId }));
  const here = await signedIn(svc, owner);
  const elsewhere = await signedIn(svc, owner);
  const before = { cookie: here.cookie, csrf: here.csrf };

  const res = await change(here, owner.password);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ state: 'active', user: { id: owner.id } });
  expect(here.cookie).not.toBe(before.cookie);
  expect(here.csrf).not.toBe(before.csrf);
  expect((await here.get('/v1/admin/session')).status).toBe(200);
  expect((await elsewhere.get('/v1/admin/session')).status).toBe(401);
  const stale = new SessionClient(svc);
  stale.cookie = before.cookie;
  expect((await stale.get('/v1/admin/session')).status).toBe(401);
  expect((await colleague.get('/v1/admin/session')).status).toBe(200);

  expect((await new SessionClient(svc).login(owner.email, owner.password)).status).toBe(401);
  expect((await new SessionClient(svc).login(owner.email, NEW_PASSWORD)).status).toBe(200);
});

it('refuses a wrong current password or a short new one in the API words, changing nothing', async () => {
  const viewer = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
  const client = await signedIn(svc, viewer);
  const other = await signedIn(svc, viewer);
  const hash = await hashOf(viewer);
  const wrong = await change(client, 'not my password at all');
  expect(wrong.status).toBe(400);
  expect(wrong.body.data).toEqual([{ field: 'current_password', message: 'is not your current password' }]);
  const short = await change(client, viewer.password, 'too short');
  expect(short.status).toBe(400);
  expect(short.body.data.map((e: { field: string }) => e.field)).toEqual(['new_password']);
  expect((await change(client, '')).status).toBe(400);
  expect(await hashOf(viewer)).toBe(hash);
  expect((await other.get('/v1/admin/session')).status).toBe(200);
});

it('lets every role change its own password, and only with a finished session, its cookie and its CSRF token', async () => {
  for (const role of ['operator_support', 'merchant_developer'] as const) {
    const user = await createUser(svc, { role, business_id: role === 'operator_support' ? null : businessId, totp: role === 'operator_support' });
    clock.advance(30_000);
    expect((await change(await signedIn(svc, user, clock), user.password)).status).toBe(200);
  }
  const op = await createUser(svc, { role: 'operator_admin', totp: true });
  const pending = new SessionClient(svc);
  await pending.login(op.email, op.password);
  expect((await change(pending, op.password)).status).toBe(401);
  expect((await svc.admin.post('/v1/admin/me/password', { current_password: 'x', new_password: NEW_PASSWORD })).status).toBe(401);
  clock.advance(30_000);
  const active = await signedIn(svc, op, clock);
  const noCsrf = await active.post('/v1/admin/me/password', { current_password: op.password, new_password: NEW_PASSWORD }, { csrf: false });
  expect(noCsrf.status).toBe(403);
  expect(noCsrf.body.code).toBe('CSRF_FAILED');
});

it('counts wrong current passwords towards the sign-in limit even though each attempt is rolled back', async () => {
  const user = await createUser(svc, { role: 'merchant_developer', business_id: businessId });
  clock.advance(60_000 - (clock.now().getTime() % 60_000) + 100);
  const client = await signedIn(svc, user);
  for (let i = 0; i < 10; i++) expect((await change(client, `wrong guess ${i}`)).status).toBe(400);
  const limited = await change(client, user.password);
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  expect((await new SessionClient(svc).login(user.email, user.password)).status).toBe(429);
});

it('records the change in the audit log without any password', async () => {
  const user = await createUser(svc, { role: 'merchant_owner', business_id: businessId });
  expect((await change(await signedIn(svc, user), user.password)).status).toBe(200);
  const entry = await svc.services.db.one(`SELECT action, business_id, target_type, target_id, before, after FROM audit_log WHERE action = 'changeOwnPassword' AND actor_user_id = $1`, [user.id]);
  expect(entry).toMatchObject({ target_type: 'user', target_id: String(user.id), business_id: businessId });
  const text = JSON.stringify(entry);
  for (const secret of [user.password, NEW_PASSWORD, 'password_hash']) expect(text).not.toContain(secret);
});
