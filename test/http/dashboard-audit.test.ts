// Proves the audit log: every change by a person or by the operator key is recorded with who, when, what, the record before and after, and never a secret (API secrets, webhook hashes, MID passwords and credentials, passwords, TOTP secrets, tokens, and no value of any sealed or hashed column the migrations create); operator admins read all of it, a merchant owner its own business only; it filters by action, person and time; and a change and its entry commit together or not at all.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createBusiness, tokenBody } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, PASSWORD, SessionClient, signedIn, tokenFromOutbox, totpCode, TOTP_SECRET } from '../helpers/users';
import type { TestUser } from '../helpers/users';
import { currentCode } from '../../src/people/totp';

const clock = new Clock();
let svc: TestService;
let businessA: number;
let businessB: number;
let owner: TestUser;
let ownerSession: SessionClient;
/** every secret seen in this file: none may be in the audit log */
const secrets: string[] = [PASSWORD, TOTP_SECRET];

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  businessA = (await createBusiness(svc, { name: 'Audit A' })).id;
  businessB = (await createBusiness(svc, { name: 'Audit B' })).id;
  owner = await createUser(svc, { role: 'merchant_owner', business_id: businessA });
  ownerSession = await signedIn(svc, owner);
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const entries = async (query = '') => (await svc.admin.get(`/v1/admin/audit-log?per_page=100${query}`)).body.data as any[];

it('records a change by the operator key with the record before and after, without the hash', async () => {
  const body = tokenBody();
  secrets.push(body.webhook_hash);
  const created = await svc.admin.post(`/v1/admin/businesses/${businessB}/api-tokens`, body);
  secrets.push(created.body.data.api_secret);
  const id = created.body.data.id;
  expect((await svc.admin.patch(`/v1/admin/api-tokens/${id}`, { webhook_url: 'https://8.8.4.4/new-hook' })).status).toBe(200);
  const [update, create] = await entries(`&business_id=${businessB}`);
  expect(update).toMatchObject({
    actor: { type: 'operator_key', user_id: null, email: null },
    action: 'updateApiToken',
    business_id: businessB,
    target_type: 'api_token',
    target_id: String(id),
    before: { id, webhook_url: body.webhook_url },
    after: { id, webhook_url: 'https://8.8.4.4/new-hook' },
  });
  expect(update.request_id).toEqual(expect.any(String));
  expect(create).toMatchObject({ action: 'createApiToken', before: null, after: { id, api_key: created.body.data.api_key } });
  for (const e of [update, create]) expect(Object.keys(e.after)).not.toEqual(expect.arrayContaining(['secret_hash']));
});

it('records a change by a person with its user id and email; a deletion has no after', async () => {
  const created = await ownerSession.post(`/v1/admin/businesses/${businessA}/api-tokens`, tokenBody());
  secrets.push(created.body.data.api_secret);
  const regenerated = await ownerSession.post(`/v1/admin/api-tokens/${created.body.data.id}/regenerate`);
  secrets.push(regenerated.body.data.api_secret);
  expect((await ownerSession.delete(`/v1/admin/api-tokens/${created.body.data.id}`)).status).toBe(200);
  const [deleted, regen] = await entries(`&actor_user_id=${owner.id}`);
  expect(deleted).toMatchObject({ actor: { type: 'user', user_id: owner.id, email: owner.email }, action: 'deleteApiToken', business_id: businessA, after: null });
  expect(deleted.before).toMatchObject({ id: created.body.data.id });
  expect(regen).toMatchObject({ action: 'regenerateApiToken' });
  expect(regen.after.generation).toBe(regen.before.generation + 1);
});

it('records people changes (sign-in, invitation, role change) without passwords or tokens', async () => {
  const invited = await ownerSession.post('/v1/admin/invitations', { email: 'new.team@people.example', role: 'merchant_viewer', business_id: businessA });
  expect(invited.status).toBe(200);
  const token = await svc.services.db.one("SELECT id FROM invitations WHERE email = 'new.team@people.example'");
  expect(token.id).toBe(invited.body.data.id);
  const user = await createUser(svc, { role: 'merchant_viewer', business_id: businessA });
  expect((await ownerSession.patch(`/v1/admin/users/${user.id}`, { role: 'merchant_developer' })).status).toBe(200);
  const actions = (await entries(`&business_id=${businessA}`)).map((e) => e.action);
  expect(actions).toEqual(expect.arrayContaining(['login', 'createInvitation', 'updateUser']));
  const roleChange = (await entries(`&business_id=${businessA}`)).find((e) => e.action === 'updateUser');
  expect(roleChange).toMatchObject({ target_type: 'user', target_id: String(user.id), before: { role: 'merchant_viewer' }, after: { role: 'merchant_developer' } });
  expect(Object.keys(roleChange.after)).not.toContain('password_hash');
});

it('keeps every secret out of the log, in the answers and in the table', async () => {
  const mid = await svc.admin.post(`/v1/admin/businesses/${businessB}/mids`, {
    business_name: 'Audit B',
    service_type: 'sandbox',
    payment_method: 'MOBILE_MONEY',
    currency: 'UGX',
    merchant_username: 'mid-user',
    merchant_password: 'mid-password-very-secret',
  });
  expect(mid.status).toBe(200);
  secrets.push('mid-password-very-secret');
  const op = await createUser(svc, { role: 'operator_admin', totp: true });
  const adminSession = await signedIn(svc, op, clock);
  expect((await adminSession.patch(`/v1/admin/mids/${mid.body.data.id}`, { merchant_password: 'another-mid-secret-2' })).status).toBe(200);
  secrets.push('another-mid-secret-2');
  const text = JSON.stringify(await entries()) + JSON.stringify(await svc.services.db.any('SELECT actor_email, action, target_id, before::text, after::text FROM audit_log'));
  expect(text).toContain('updateMid');
  for (const s of secrets) expect([s, text.includes(s)]).toEqual([s, false]);
  expect(text).not.toMatch(/secret_hash|webhook_hash|password_hash|totp_secret|merchant_password|csrf_token|"token"/);
});

it('lets a merchant owner read its own business entries only', async () => {
  const own = await ownerSession.get('/v1/admin/audit-log?per_page=100');
  expect(own.status).toBe(200);
  expect(own.body.data.length).toBeGreaterThan(0);
  expect(new Set(own.body.data.map((e: { business_id: number }) => e.business_id))).toEqual(new Set([businessA]));
  expect((await ownerSession.get(`/v1/admin/audit-log?business_id=${businessB}`)).status).toBe(404);
});

it('filters by action, person and time (to the second), and refuses a malformed filter', async () => {
  const token = await svc.admin.post(`/v1/admin/businesses/${businessA}/api-tokens`, tokenBody());
  expect(token.status).toBe(200);
  secrets.push(token.body.data.api_secret, token.body.data.webhook_hash);
  expect((await ownerSession.patch(`/v1/admin/api-tokens/${token.body.data.id}`, { email_user: true })).status).toBe(200);
  const mine = await entries(`&action=updateApiToken&actor_user_id=${owner.id}`);
  const entry = mine.find((e) => e.target_id === String(token.body.data.id));
  expect(entry).toMatchObject({ action: 'updateApiToken', actor: { type: 'user', user_id: owner.id } });
  expect(mine.every((e) => e.action === 'updateApiToken' && e.actor.user_id === owner.id)).toBe(true);
  // the operator key's creation of the token is another action by another actor
  expect((await entries(`&action=createApiToken&actor_user_id=${owner.id}`)).map((e) => e.target_id)).not.toContain(String(token.body.data.id));
  expect((await entries('&action=createApiToken')).map((e) => e.target_id)).toContain(String(token.body.data.id));

  const second = entry.at as string;
  const within = await entries(`&from=${second}&to=${second}`);
  expect(within.map((e) => e.id)).toContain(entry.id);
  expect(within.every((e) => e.at === second)).toBe(true);
  const before = new Date(Date.parse(second) - 1000).toISOString().slice(0, 19);
  expect((await entries(`&to=${before}`)).map((e) => e.id)).not.toContain(entry.id);
  expect((await entries(`&from=${new Date(Date.parse(second) + 1000).toISOString().slice(0, 19)}Z`)).map((e) => e.id)).not.toContain(entry.id);

  for (const [query, field] of [['action=update-api-token', 'action'], ['action=', 'action'], ['from=2025-02-30T00:00:00Z', 'from'], ['to=yesterday', 'to'], ['actor_user_id=0', 'actor_user_id']]) {
    const res = await svc.admin.get(`/v1/admin/audit-log?${query}`);
    expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(res.body.errors ?? res.body)).toContain(field);
  }
});

it('writes nothing for a refused change', async () => {
  const before = await svc.services.db.one('SELECT count(*)::int AS n FROM audit_log');
  expect((await ownerSession.patch(`/v1/admin/businesses/${businessA}`, { card_settlement_days: 2 })).status).toBe(403);
  expect((await svc.admin.patch('/v1/admin/api-tokens/999999', { email_user: true })).status).toBe(404);
  expect((await svc.admin.post('/v1/admin/businesses', { name: '' })).status).toBe(400);
  expect(await svc.services.db.one('SELECT count(*)::int AS n FROM audit_log')).toEqual(before);
});

/**
 * The columns that hold secrets, read from the migrations so that one added later is covered: sealed
 * values (`*_enc`), hashes of secrets (`*_hash`), anything named secret, and the TOTP state (but the
 * date it was turned on). `collections.request_hash` is left out: it digests the merchant's own
 * request, for idempotent replays, and hides nothing; `reconciliation_statements.content_hash` digests a
 * processor's statement file, to take it in once, and hides nothing either; `api_tokens.secret_holder_user_id` names the person
 * who may hold a token's secret (a user's id, shown in the audit of who asked what) and is no secret.
 */
function secretColumns(): { table: string; column: string }[] {
  const isSecret = (c: string) => /_enc$|_hash$|secret|^totp_/.test(c) && c !== 'totp_enabled_at' && c !== 'request_hash' && c !== 'content_hash' && c !== 'secret_holder_user_id';
  const dir = path.resolve(__dirname, '..', '..', 'src', 'db', 'migrations');
  const found: { table: string; column: string }[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    const sql = readFileSync(path.join(dir, file), 'utf8');
    for (const [, table, body] of sql.matchAll(/CREATE TABLE (\w+) \(([\s\S]*?)\n\);/g)) {
      for (const line of body.split('\n')) {
        const column = /^\s+([a-z_]+)\s+[A-Z]/.exec(line)?.[1];
        if (column && isSecret(column)) found.push({ table, column });
      }
    }
    for (const [, table, column] of sql.matchAll(/ALTER TABLE (\w+) ADD COLUMN (\w+)/g)) if (isSecret(column)) found.push({ table, column });
  }
  return found;
}

it('seeds every sealed or secret column and finds none of their values, nor their names, in any audit entry or answer', async () => {
  // what a change answers (an API secret, recovery codes: shown once by design) and what is read afterwards
  const answers: string[] = [];
  const reads: string[] = [];
  const keep = <T extends { text: string }>(res: T, into = answers) => {
    into.push(res.text);
    return res;
  };
  const paystackKey = `sk_test_${'9f'.repeat(20)}`;
  secrets.push(paystackKey);
  const biz = (await createBusiness(svc, { name: 'Audit Secrets' })).id;
  keep(await svc.admin.post(`/v1/admin/businesses/${biz}/mids`, { business_name: 'Audit Secrets', service_type: 'paystack', payment_method: 'CARD', currency: 'NGN', merchant_password: 'mid-password-of-paystack', credentials: { secret_key: paystackKey } }));
  secrets.push('mid-password-of-paystack');
  const token = keep(await svc.admin.post(`/v1/admin/businesses/${biz}/api-tokens`, tokenBody()));
  secrets.push(token.body.data.api_secret);
  keep(await svc.admin.post('/v1/admin/card-keys/rotate'));
  // a person who enrols (recovery codes), signs in with a code, starts replacing it (pending secret) and asks for a reset
  const person = await createUser(svc, { role: 'merchant_owner', business_id: biz });
  const session = await signedIn(svc, person);
  const started = keep(await session.post('/v1/admin/me/totp'));
  clock.advance(30_000);
  const confirmed = keep(await session.post('/v1/admin/me/totp/confirm', { code: currentCode(started.body.data.secret, clock.now()) }));
  secrets.push(started.body.data.secret, ...confirmed.body.data.recovery_codes);
  const op = await createUser(svc, { role: 'operator_admin', totp: true });
  const opSession = await signedIn(svc, op, clock);
  clock.advance(30_000);
  const replacing = keep(await opSession.post('/v1/admin/me/totp', { current_password: op.password, current_code: totpCode(svc) }));
  expect(replacing.status).toBe(200);
  secrets.push(replacing.body.data.secret);
  keep(await opSession.post('/v1/admin/invitations', { email: 'secret.columns@people.example', role: 'merchant_viewer', business_id: biz }));
  keep(await svc.anon.post('/v1/admin/password-reset', { email: person.email }));
  keep(await new SessionClient(svc).login(person.email, 'a wrong password here'));

  for (const read of [`/v1/admin/businesses/${biz}`, '/v1/admin/businesses', `/v1/admin/businesses/${biz}/mids`, `/v1/admin/businesses/${biz}/api-tokens`, '/v1/admin/users?per_page=100', '/v1/admin/invitations?per_page=100']) {
    keep(await svc.admin.get(read), reads);
  }
  keep(await opSession.get('/v1/admin/session'), reads);
  for (let page = 1; ; page++) {
    const log = keep(await svc.admin.get(`/v1/admin/audit-log?per_page=100&page=${page}`), reads);
    if (log.body.data.length < 100) break;
  }
  const table = await svc.services.db.any('SELECT action, target_id, before::text, after::text FROM audit_log');
  const kept = reads.join('\n') + JSON.stringify(table);
  const seen = answers.join('\n') + kept;

  const columns = secretColumns();
  expect(columns.map((c) => `${c.table}.${c.column}`)).toEqual(expect.arrayContaining(['mids.credentials_enc', 'users.totp_secret_enc', 'users.totp_pending_secret_enc', 'api_tokens.secret_hash']));
  for (const { table: t, column } of columns) {
    const values = (await svc.services.db.any(`SELECT ${column}::text AS v FROM ${t} WHERE ${column} IS NOT NULL`)).map((r) => r.v as string);
    expect([`${t}.${column} seeded`, values.length > 0]).toEqual([`${t}.${column} seeded`, true]);
    for (const v of values) expect([`${t}.${column}`, seen.includes(v)]).toEqual([`${t}.${column}`, false]);
    expect([`${t}.${column} named`, JSON.stringify(table).includes(`"${column}"`)]).toEqual([`${t}.${column} named`, false]);
  }
  for (const secret of secrets) expect([secret, kept.includes(secret)]).toEqual([secret, false]);
});

describe('refused attempts on an account, and reset requests', () => {
  // the sign-in limit counts in fixed one-minute windows: start each test at the very beginning of a fresh
  // one, so its attempts never straddle a window's end (a minute later would only be a new window)
  const newWindow = () => clock.advance(60_000 - (clock.now().getTime() % 60_000) + 1);
  const latest = async (action: string) => (await entries()).find((e) => e.action === action);

  it('records a refused sign-in without the password: the person tried, why, from where; the merchant owner sees it', async () => {
    newWindow();
    const person = await createUser(svc, { role: 'merchant_viewer', business_id: businessA });
    const wrong = 'not the password at all';
    expect((await new SessionClient(svc).login(person.email.toUpperCase(), wrong)).status).toBe(401);
    const entry = await latest('loginFailed');
    expect(entry).toMatchObject({
      actor: { type: 'anonymous', user_id: null, email: null },
      business_id: businessA,
      target_type: 'user',
      target_id: String(person.id),
      before: null,
      after: { email: person.email, reason: 'wrong_password', client_address: expect.stringMatching(/127\.0\.0\.1/) },
    });
    expect(JSON.stringify(entry)).not.toContain(wrong);
    const seenByOwner = (await ownerSession.get('/v1/admin/audit-log?per_page=100')).body.data;
    expect(seenByOwner.some((e: { id: number }) => e.id === entry.id)).toBe(true);
  });

  it('records an email of nobody with no target and no business (operator admins only), and a disabled person as disabled', async () => {
    newWindow();
    expect((await new SessionClient(svc).login('nobody.here@people.example', PASSWORD)).status).toBe(401);
    expect(await latest('loginFailed')).toMatchObject({ business_id: null, target_type: null, target_id: null, after: { email: 'nobody.here@people.example', reason: 'unknown_email' } });
    const disabled = await createUser(svc, { role: 'merchant_viewer', business_id: businessA });
    await svc.services.db.none('UPDATE users SET disabled_at = now() WHERE id = $1', [disabled.id]);
    expect((await new SessionClient(svc).login(disabled.email, disabled.password)).status).toBe(401);
    expect(await latest('loginFailed')).toMatchObject({ target_id: String(disabled.id), after: { reason: 'disabled' } });
  });

  it('records a wrong second-factor code or recovery code as the session person, without the code', async () => {
    newWindow();
    const op = await createUser(svc, { role: 'operator_support', totp: true });
    const client = new SessionClient(svc);
    await client.login(op.email, op.password);
    const right = totpCode(svc);
    const wrong = right === '000000' ? '111111' : '000000';
    expect((await client.post('/v1/admin/session/totp', { code: wrong })).status).toBe(401);
    const entry = await latest('verifyTotpFailed');
    expect(entry).toMatchObject({ actor: { type: 'user', user_id: op.id, email: op.email }, target_id: String(op.id), after: { reason: 'wrong_code', session_state: 'totp_required' } });
    expect(JSON.stringify(entry.after)).not.toContain(wrong);
    expect((await client.post('/v1/admin/session/totp', { recovery_code: 'abcde-12345' })).status).toBe(401);
    expect((await latest('verifyTotpFailed')).after).toEqual({ reason: 'wrong_recovery_code', session_state: 'totp_required' });
  });

  it('records each reset request, whether a link was sent, and never the link', async () => {
    newWindow();
    const person = await createUser(svc, { role: 'merchant_developer', business_id: businessA });
    expect((await svc.anon.post('/v1/admin/password-reset', { email: person.email })).status).toBe(200);
    expect(await latest('requestPasswordReset')).toMatchObject({ actor: { type: 'anonymous' }, business_id: businessA, target_id: String(person.id), after: { email: person.email, sent: true } });
    expect((await svc.anon.post('/v1/admin/password-reset', { email: 'nobody.reset@people.example' })).status).toBe(200);
    expect(await latest('requestPasswordReset')).toMatchObject({ business_id: null, target_id: null, after: { email: 'nobody.reset@people.example', sent: false } });
    const token = await tokenFromOutbox(svc, person.email, 'reset-password');
    const text = JSON.stringify(await entries());
    expect(text).not.toContain(token);
    expect(text).not.toContain('reset-password?token');
  });

  it('bounds the volume: attempts refused by the sign-in limit are not recorded one by one', async () => {
    newWindow();
    const person = await createUser(svc, { role: 'merchant_viewer', business_id: businessA });
    const count = async () => (await svc.services.db.one("SELECT count(*)::int AS n FROM audit_log WHERE action = 'loginFailed' AND target_id = $1", [String(person.id)])).n;
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await new SessionClient(svc).login(person.email, 'wrong guess number ' + i)).status);
    expect(statuses.filter((st) => st === 429).length).toBeGreaterThan(0);
    expect(await count()).toBe(statuses.filter((st) => st === 401).length);
    expect(await count()).toBeLessThanOrEqual(10);
  });
});

describe('one transaction for a change and its entry', () => {
  const businessName = async (id: number) => (await svc.admin.get(`/v1/admin/businesses/${id}`)).body.data.name;
  const entriesNaming = async (name: string) =>
    (await svc.services.db.one(`SELECT count(*)::int AS n FROM audit_log WHERE after->>'name' = $1`, [name])).n;

  afterEach(async () => {
    await svc.services.db.none('DROP TRIGGER IF EXISTS refuse_entry ON audit_log; DROP TRIGGER IF EXISTS refuse_at_commit ON businesses');
  });

  it('leaves no change when its audit entry cannot be written', async () => {
    // the database refuses this one entry, as a full disk or a broken audit table would
    await svc.services.db.none(`CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
      CREATE TRIGGER refuse_entry BEFORE INSERT ON audit_log FOR EACH ROW WHEN (NEW.after->>'name' = 'Unrecorded name') EXECUTE FUNCTION refuse()`);
    const name = await businessName(businessB);
    const res = await svc.admin.patch(`/v1/admin/businesses/${businessB}`, { name: 'Unrecorded name' });
    expect(res.status).toBe(500);
    expect(await businessName(businessB)).toBe(name);
  });

  it('leaves no audit entry when the change fails as it commits', async () => {
    // checked only at COMMIT, after the handler and the entry's INSERT have both succeeded
    await svc.services.db.none(`CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
      CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER UPDATE ON businesses DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (NEW.name = 'Refused at commit') EXECUTE FUNCTION refuse()`);
    const res = await svc.admin.patch(`/v1/admin/businesses/${businessB}`, { name: 'Refused at commit' });
    expect(res.status).toBe(500);
    expect(await entriesNaming('Refused at commit')).toBe(0);
    expect(await businessName(businessB)).not.toBe('Refused at commit');
  });

  it('still records both when nothing is refused', async () => {
    expect((await svc.admin.patch(`/v1/admin/businesses/${businessB}`, { name: 'Recorded name' })).status).toBe(200);
    expect(await businessName(businessB)).toBe('Recorded name');
    expect(await entriesNaming('Recorded name')).toBe(1);
  });
});
