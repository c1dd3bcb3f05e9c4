// Proves two-factor sign-in over HTTP: an operator must enrol before anything else, enrolment needs a real code and returns 10 recovery codes once (stored hashed), sign-in then waits for a code, a code or a recovery code works once (the session says how many recovery codes are left), wrong codes are throttled, and each step gives a new session id; and replacing an authenticator needs an active session, the password and a current code, and swaps secret and recovery codes only once confirmed.
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, SessionClient, signedIn, totpCode, TOTP_SECRET } from '../helpers/users';
import { currentCode } from '../../src/people/totp';

const clock = new Clock();
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const nextStep = () => clock.advance(30_000);

describe('enrolment (operators must)', () => {
  it('lets a new operator do nothing but enrol; a wrong code is refused; a right one turns 2FA on, rotates the session and shows recovery codes once', async () => {
    const op = await createUser(svc, { role: 'operator_admin' });
    const client = new SessionClient(svc);
    const login = await client.login(op.email, op.password);
    expect(login.status).toBe(200);
    expect(login.body.data.state).toBe('totp_enrolment_required');
    const blocked = await client.get('/v1/admin/businesses');
    expect(blocked.status).toBe(401);
    expect(blocked.body.message).toMatch(/two-factor/);

    const started = await client.post('/v1/admin/me/totp');
    expect(started.status).toBe(200);
    const { secret, otpauth_url } = started.body.data;
    expect(otpauth_url).toContain(`secret=${secret}`);
    const stored = await svc.services.db.one('SELECT totp_secret_enc, totp_enabled_at FROM users WHERE id = $1', [op.id]);
    expect(stored.totp_secret_enc).not.toContain(secret);
    expect(stored.totp_enabled_at).toBeNull();

    const wrong = await client.post('/v1/admin/me/totp/confirm', { code: '000000' === currentCode(secret, clock.now()) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    const badShape = await client.post('/v1/admin/me/totp/confirm', { code: '12345' });
    expect(badShape.status).toBe(400);

    const enrolmentCookie = client.cookie;
    const confirmed = await client.post('/v1/admin/me/totp/confirm', { code: currentCode(secret, clock.now()) });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(confirmed.body.data.session).toMatchObject({ state: 'active', user: { totp_enabled: true }, recovery_codes_left: 10 });
    expect(client.cookie).not.toBe(enrolmentCookie);
    expect((await client.get('/v1/admin/businesses')).status).toBe(200);

    const hashes = await svc.services.db.any('SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1', [op.id]);
    expect(hashes).toHaveLength(10);
    for (const code of codes) expect(JSON.stringify(hashes)).not.toContain(code);

    const old = new SessionClient(svc);
    old.cookie = enrolmentCookie;
    expect((await old.get('/v1/admin/session')).status).toBe(401);
    expect((await client.post('/v1/admin/me/totp')).status).toBe(400); // already on
  });

  it('lets a merchant user work without 2FA and enrol if it wants', async () => {
    const biz = await svc.admin.post('/v1/admin/businesses', { name: 'Totp Shop', default_currency: 'UGX' });
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: biz.body.data.id });
    const client = await signedIn(svc, owner);
    expect((await client.get('/v1/admin/session')).body.data.recovery_codes_left).toBeNull(); // no 2FA, no codes
    const started = await client.post('/v1/admin/me/totp');
    expect(started.status).toBe(200);
    const confirmed = await client.post('/v1/admin/me/totp/confirm', { code: currentCode(started.body.data.secret, clock.now()) });
    expect(confirmed.status).toBe(200);
    const again = await new SessionClient(svc).login(owner.email, owner.password);
    expect(again.body.data.state).toBe('totp_required');
  });
});

describe('sign-in with a second factor', () => {
  it('waits for a code: nothing else works until then; the code passes once; the session id changes', async () => {
    const op = await createUser(svc, { role: 'operator_support', totp: true });
    const client = new SessionClient(svc);
    const login = await client.login(op.email, op.password);
    expect(login.body.data.state).toBe('totp_required');
    expect((await client.get('/v1/admin/collections')).status).toBe(401);
    expect((await client.post('/v1/admin/me/totp')).status).toBe(401); // enrolment is not a way round the code
    const passwordOnly = client.cookie;
    nextStep();
    const code = totpCode(svc);
    const passed = await client.post('/v1/admin/session/totp', { code });
    expect(passed.status).toBe(200);
    expect(passed.body.data.state).toBe('active');
    expect(client.cookie).not.toBe(passwordOnly);
    expect((await client.get('/v1/admin/collections')).status).toBe(200);
    expect((await client.post('/v1/admin/session/totp', { code })).status).toBe(400); // already active

    // the same code again, in a new sign-in within the same 30 seconds: refused
    const replay = new SessionClient(svc);
    await replay.login(op.email, op.password);
    const refused = await replay.post('/v1/admin/session/totp', { code });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/already used/);
  });

  it('takes a recovery code once in place of a code', async () => {
    const op = await createUser(svc, { role: 'operator_admin' });
    const enrol = new SessionClient(svc);
    await enrol.login(op.email, op.password);
    const secret = (await enrol.post('/v1/admin/me/totp')).body.data.secret;
    nextStep();
    const codes: string[] = (await enrol.post('/v1/admin/me/totp/confirm', { code: currentCode(secret, clock.now()) })).body.data.recovery_codes;

    const first = new SessionClient(svc);
    await first.login(op.email, op.password);
    const used = await first.post('/v1/admin/session/totp', { recovery_code: codes[3] });
    expect(used.status).toBe(200);
    expect(used.body.data.recovery_codes_left).toBe(9); // the session shows how many are left
    const second = new SessionClient(svc);
    await second.login(op.email, op.password);
    expect((await second.post('/v1/admin/session/totp', { recovery_code: codes[3] })).status).toBe(401);
    expect((await second.post('/v1/admin/session/totp', { code: '123456', recovery_code: codes[4] })).status).toBe(400);
    expect((await second.get('/v1/admin/session')).body.data.recovery_codes_left).toBe(9); // refusals use none
    expect((await second.post('/v1/admin/session/totp', { recovery_code: codes[4] })).status).toBe(200);
    expect((await second.get('/v1/admin/session')).body.data.recovery_codes_left).toBe(8);
    expect((await first.get('/v1/admin/session')).body.data.recovery_codes_left).toBe(8);
    const left = await svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM totp_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [op.id]);
    expect(left.n).toBe(8);
  });

  it('takes a code of the current time step or one step either side (a phone clock a little off), and none further away', async () => {
    const op = await createUser(svc, { role: 'operator_support', totp: true });
    const attempt = async (stepsAway: number) => {
      nextStep();
      const client = new SessionClient(svc);
      await client.login(op.email, op.password);
      return (await client.post('/v1/admin/session/totp', { code: totpCode(svc, TOTP_SECRET, stepsAway) })).status;
    };
    expect([await attempt(-2), await attempt(2), await attempt(-20), await attempt(20)]).toEqual([401, 401, 401, 401]);
    expect([await attempt(-1), await attempt(0), await attempt(1)]).toEqual([200, 200, 200]);
  });

  it('throttles wrong codes like wrong passwords', async () => {
    const op = await createUser(svc, { role: 'operator_admin', totp: true });
    clock.advance(60_000 - (clock.now().getTime() % 60_000) + 100);
    const client = new SessionClient(svc);
    await client.login(op.email, op.password);
    const right = totpCode(svc);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 10; i++) expect((await client.post('/v1/admin/session/totp', { code: wrong })).status).toBe(401);
    const limited = await client.post('/v1/admin/session/totp', { code: right });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('keeps the secret out of every answer after enrolment', async () => {
    const op = await createUser(svc, { role: 'operator_admin', totp: true });
    const client = await signedIn(svc, op, clock);
    const me = await client.get('/v1/admin/session');
    expect(me.text).not.toContain(TOTP_SECRET);
    const users = await client.get('/v1/admin/users');
    expect(users.text).not.toContain(TOTP_SECRET);
    expect(users.text).not.toMatch(/totp_secret|password_hash/);
  });
});

describe('replacing the authenticator (a new phone)', () => {
  it('needs the password and a current code, keeps the old secret until a code of the new one confirms it, then swaps the recovery codes and ends the other sessions', async () => {
    const op = await createUser(svc, { role: 'operator_admin', totp: true });
    nextStep();
    const client = await signedIn(svc, op, clock);
    nextStep();
    const elsewhere = await signedIn(svc, op, clock);
    const oldCodes = await svc.services.db.any('SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1', [op.id]);

    expect((await client.post('/v1/admin/me/totp')).body.data).toEqual([
      { field: 'current_password', message: 'is required' },
      { field: 'current_code', message: 'is required' },
    ]);
    expect((await client.post('/v1/admin/me/totp', { current_password: op.password })).status).toBe(400);
    nextStep();
    const wrongPassword = await client.post('/v1/admin/me/totp', { current_password: 'not the password', current_code: totpCode(svc) });
    expect(wrongPassword.body.data).toEqual([{ field: 'current_password', message: 'is not your current password' }]);
    const right = totpCode(svc);
    const wrongCode = await client.post('/v1/admin/me/totp', { current_password: op.password, current_code: right === '000000' ? '111111' : '000000' });
    expect([wrongCode.status, wrongCode.body.message]).toEqual([401, 'The code is wrong or was already used']);
    expect((await svc.services.db.one('SELECT totp_pending_secret_enc FROM users WHERE id = $1', [op.id])).totp_pending_secret_enc).toBeNull();
    const started = await client.post('/v1/admin/me/totp', { current_password: op.password, current_code: right });
    expect(started.status).toBe(200);
    // the code that proved it is spent
    expect((await client.post('/v1/admin/me/totp', { current_password: op.password, current_code: right })).status).toBe(401);
    const { secret } = started.body.data;
    expect(secret).not.toBe(TOTP_SECRET);

    // until confirmed, the authenticator in use still signs in
    nextStep();
    const meanwhile = await signedIn(svc, op, clock);
    const wrong = await client.post('/v1/admin/me/totp/confirm', { code: totpCode(svc) === currentCode(secret, clock.now()) ? '000000' : totpCode(svc) });
    expect(wrong.status).toBe(401);

    const before = client.cookie;
    const confirmed = await client.post('/v1/admin/me/totp/confirm', { code: currentCode(secret, clock.now()) });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(client.cookie).not.toBe(before);
    expect((await client.get('/v1/admin/session')).status).toBe(200);
    for (const other of [elsewhere, meanwhile]) expect((await other.get('/v1/admin/session')).status).toBe(401);
    const newHashes = await svc.services.db.any('SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1', [op.id]);
    expect(newHashes.filter((h) => oldCodes.some((o) => o.code_hash === h.code_hash))).toEqual([]);

    // now only the new secret signs in
    nextStep();
    const withOld = new SessionClient(svc);
    await withOld.login(op.email, op.password);
    expect((await withOld.post('/v1/admin/session/totp', { code: totpCode(svc) })).status).toBe(401);
    nextStep();
    expect((await withOld.post('/v1/admin/session/totp', { code: currentCode(secret, clock.now()) })).status).toBe(200);
    const stored = await svc.services.db.one('SELECT totp_secret_enc, totp_pending_secret_enc FROM users WHERE id = $1', [op.id]);
    expect(stored.totp_pending_secret_enc).toBeNull();
    expect(stored.totp_secret_enc).not.toContain(secret);
  });

  it('leaves the secret out of the audit log of a replacement', async () => {
    const op = await createUser(svc, { role: 'operator_support', totp: true });
    nextStep();
    const client = await signedIn(svc, op, clock);
    nextStep();
    const started = await client.post('/v1/admin/me/totp', { current_password: op.password, current_code: totpCode(svc) });
    expect(started.status).toBe(200);
    const entries = await svc.services.db.any('SELECT before, after FROM audit_log WHERE actor_user_id = $1', [op.id]);
    expect(JSON.stringify(entries)).not.toContain(started.body.data.secret);
    expect(JSON.stringify(entries)).not.toContain('totp_pending_secret_enc');
  });
});

describe('an intruder who has only the password', () => {
  it('cannot set up an authenticator of its own from a session waiting for the code; the real admin keeps theirs and their session', async () => {
    const op = await createUser(svc, { role: 'operator_admin', totp: true });
    nextStep();
    const real = await signedIn(svc, op, clock);
    const before = await svc.services.db.one('SELECT totp_secret_enc, totp_pending_secret_enc, totp_enabled_at FROM users WHERE id = $1', [op.id]);
    const codesBefore = await svc.services.db.any('SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1 ORDER BY code_hash', [op.id]);

    const intruder = new SessionClient(svc);
    expect((await intruder.login(op.email, op.password)).body.data.state).toBe('totp_required');
    expect((await intruder.get('/v1/admin/businesses')).status).toBe(401);
    for (const body of [undefined, { current_password: op.password, current_code: '123456' }]) {
      const started = await intruder.post('/v1/admin/me/totp', body);
      expect([started.status, started.body.message]).toEqual([401, 'Finish signing in first: two-factor authentication is pending']);
    }
    const mine = 'KRSXG5CTMVRXEZLUKN2XAZLSKNSWG4TF';
    expect((await intruder.post('/v1/admin/me/totp/confirm', { code: currentCode(mine, clock.now()) })).status).toBe(401);
    expect((await intruder.get('/v1/admin/session')).body.data.state).toBe('totp_required');

    // the service refuses too, should a route ever let such a session through: for the session's state, not
    // for the password or the code, which are both right here (a code of a step not used yet)
    const actor = await svc.services.sessions.authenticate(intruder.cookie ?? undefined);
    nextStep();
    const pending = { code: 'UNAUTHORIZED', message: 'Finish signing in first: two-factor authentication is pending' };
    await expect(svc.services.totp.start(actor!, { current_password: op.password, current_code: totpCode(svc) })).rejects.toMatchObject(pending);
    await expect(svc.services.totp.confirm(actor!, currentCode(mine, clock.now()))).rejects.toMatchObject(pending);

    expect(await svc.services.db.one('SELECT totp_secret_enc, totp_pending_secret_enc, totp_enabled_at FROM users WHERE id = $1', [op.id])).toEqual(before);
    expect(await svc.services.db.any('SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1 ORDER BY code_hash', [op.id])).toEqual(codesBefore);
    const enrolments = await svc.services.db.any("SELECT action FROM audit_log WHERE actor_user_id = $1 AND action LIKE '%TotpEnrolment'", [op.id]);
    expect(enrolments).toEqual([]);
    expect((await real.get('/v1/admin/businesses')).status).toBe(200);
    nextStep();
    expect((await intruder.post('/v1/admin/session/totp', { code: totpCode(svc, mine) })).status).toBe(401);
    expect((await signedIn(svc, op, clock)).cookie).not.toBeNull(); // the real authenticator still signs in
  });
});
