// Proves the audit log: every change by a person or by the operator key is recorded with who, when, what, the record before and after, and never a secret (API secrets, webhook hashes, MID passwords, passwords, TOTP secrets, tokens); operator admins read all of it, a merchant owner its own business only; and a change and its entry commit together or not at all.
import { createBusiness, tokenBody } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, PASSWORD, signedIn, TOTP_SECRET } from '../helpers/users';
import type { SessionClient, TestUser } from '../helpers/users';

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

it('writes nothing for a refused change', async () => {
  const before = await svc.services.db.one('SELECT count(*)::int AS n FROM audit_log');
  expect((await ownerSession.patch(`/v1/admin/businesses/${businessA}`, { card_settlement_days: 2 })).status).toBe(403);
  expect((await svc.admin.patch('/v1/admin/api-tokens/999999', { email_user: true })).status).toBe(404);
  expect((await svc.admin.post('/v1/admin/businesses', { name: '' })).status).toBe(400);
  expect(await svc.services.db.one('SELECT count(*)::int AS n FROM audit_log')).toEqual(before);
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
