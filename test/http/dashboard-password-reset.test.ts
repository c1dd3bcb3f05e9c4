// Proves password reset by email, through the .eml outbox and through an in-process SMTP server: the same answer for unknown emails and disabled users (who get no link, and whose earlier link stops working), a single-use link valid 30 minutes, the new password works and the old one and every open session stop, and reset emails are throttled.
import { eventually } from '../helpers/fixtures';
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, PASSWORD, SessionClient, signedIn, tokenFromOutbox, tokenIn } from '../helpers/users';
import { startSmtp } from '../helpers/smtp';
import type { TestSmtp } from '../helpers/smtp';

const NEW_PASSWORD = 'a much longer passphrase now';

const requestReset = (svc: TestService, email: string) => svc.anon.post('/v1/admin/password-reset', { email });
const complete = (svc: TestService, token: string, password = NEW_PASSWORD) =>
  svc.anon.post('/v1/admin/password-reset/complete', { token, new_password: password });

describe('through the .eml outbox', () => {
  const clock = new Clock();
  let svc: TestService;
  let businessId: number;

  beforeAll(async () => {
    svc = await startTestService({ now: clock.now });
    businessId = (await createBusiness(svc)).id;
  }, 180_000); // a service start is over a minute on a loaded machine
  afterAll(async () => {
    await svc?.close();
  });

  it('sends a disabled user no link, with the same answer as anyone; a link sent before it was disabled no longer works', async () => {
    const user = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
    const sentBefore = await requestReset(svc, user.email);
    const token = await tokenFromOutbox(svc, user.email, 'reset-password');
    expect((await svc.admin.patch(`/v1/admin/users/${user.id}`, { disabled: true })).status).toBe(200);

    const asked = await requestReset(svc, user.email);
    expect([asked.status, asked.body.message]).toEqual([sentBefore.status, sentBefore.body.message]);
    const links = await svc.services.db.one('SELECT count(*)::int AS n FROM password_resets WHERE user_id = $1', [user.id]);
    expect(links.n).toBe(1); // only the one sent while it was active
    const emails = await svc.services.db.one("SELECT count(*)::int AS n FROM emails WHERE kind = 'password_reset' AND recipient = $1", [user.email]);
    expect(emails.n).toBe(1);

    const hash = (await svc.services.db.one('SELECT password_hash FROM users WHERE id = $1', [user.id])).password_hash;
    const used = await complete(svc, token);
    expect([used.status, used.body.code]).toEqual([400, 'INVALID_STATE']);
    expect((await svc.services.db.one('SELECT password_hash FROM users WHERE id = $1', [user.id])).password_hash).toBe(hash);
    expect((await new SessionClient(svc).login(user.email, NEW_PASSWORD)).status).toBe(401);
  });

  it('emails a single-use link; the new password works, the old one and open sessions stop', async () => {
    const user = await createUser(svc, { role: 'merchant_owner', business_id: businessId });
    const open = await signedIn(svc, user);
    const res = await requestReset(svc, user.email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('If this email belongs to a user, a reset link is on its way');
    const token = await tokenFromOutbox(svc, user.email, 'reset-password');
    const stored = await svc.services.db.any('SELECT token_hash FROM password_resets');
    expect(JSON.stringify(stored)).not.toContain(token);

    const done = await complete(svc, token);
    expect(done.status).toBe(200);
    expect((await open.get('/v1/admin/session')).status).toBe(401);
    expect((await new SessionClient(svc).login(user.email, PASSWORD)).status).toBe(401);
    expect((await new SessionClient(svc).login(user.email, NEW_PASSWORD)).status).toBe(200);
    const reused = await complete(svc, token, 'yet another long password');
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('INVALID_STATE');
  });

  it('answers an unknown email the same way and sends nothing', async () => {
    const before = await svc.services.db.one("SELECT count(*)::int AS n FROM emails WHERE kind = 'password_reset'");
    const res = await requestReset(svc, 'nobody.here@people.example');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('If this email belongs to a user, a reset link is on its way');
    expect(await svc.services.db.one("SELECT count(*)::int AS n FROM emails WHERE kind = 'password_reset'")).toEqual(before);
  });

  it('refuses a link older than 30 minutes and a short password, changing nothing', async () => {
    const user = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
    await requestReset(svc, user.email);
    const token = await tokenFromOutbox(svc, user.email, 'reset-password');
    const short = await complete(svc, token, 'short');
    expect(short.status).toBe(400);
    expect(short.body.data.map((e: { field: string }) => e.field)).toEqual(['new_password']);
    clock.advance(30 * 60_000 + 1000);
    const late = await complete(svc, token);
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('INVALID_STATE');
    expect((await new SessionClient(svc).login(user.email, PASSWORD)).status).toBe(200);
  });

  it('sends at most 10 reset emails a minute for one address', async () => {
    const user = await createUser(svc, { role: 'merchant_viewer', business_id: businessId });
    clock.advance(60_000 - (clock.now().getTime() % 60_000) + 100);
    for (let i = 0; i < 10; i++) expect((await requestReset(svc, user.email)).status).toBe(200);
    const limited = await requestReset(svc, user.email);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('through SMTP', () => {
  let smtp: TestSmtp;
  let svc: TestService;

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startTestService({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
  }, 180_000); // a service start is over a minute on a loaded machine
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  it('delivers the reset link to the SMTP server, and it works', async () => {
    const business = await createBusiness(svc);
    const user = await createUser(svc, { role: 'merchant_owner', business_id: business.id });
    expect((await requestReset(svc, user.email)).status).toBe(200);
    const token = await eventually(async () => smtp.mails.map((m) => (m.raw.includes(user.email) ? tokenIn(m.raw, 'reset-password') : undefined)).find(Boolean), 20_000, 'reset email over SMTP');
    expect((await complete(svc, token as string)).status).toBe(200);
    expect((await new SessionClient(svc).login(user.email, NEW_PASSWORD)).status).toBe(200);
  });
});
