// Proves invitations over HTTP and the email outbox: the link arrives by email (its token stored only as a hash), accepting creates the user with the invited role and business once, an expired, withdrawn or replaced invitation creates nobody, and bad input changes nothing; once the email is sent the outbox keeps no usable token.
import { createHash } from 'node:crypto';
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { eventually } from '../helpers/fixtures';
import { Clock, PASSWORD, SessionClient, tokenFromOutbox } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let businessId: number;
const used: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  businessId = (await createBusiness(svc, { name: 'Invite Shop' })).id;
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

async function invite(email: string, role = 'merchant_developer') {
  const res = await svc.admin.post('/v1/admin/invitations', { email, role, business_id: businessId });
  expect(res.status).toBe(200);
  const token = await tokenFromOutbox(svc, email.toLowerCase(), 'accept-invitation', used);
  used.push(token);
  return { invitation: res.body.data, token };
}

const accept = (token: string, password = PASSWORD, name?: string) =>
  svc.anon.post('/v1/admin/invitations/accept', { token, password, ...(name ? { name } : {}) });

const usersNamed = (email: string) => svc.services.db.any('SELECT * FROM users WHERE email = $1', [email]);

it('emails a link valid for 72 hours; accepting creates the user with the invited role, once', async () => {
  const { invitation, token } = await invite('Joel@People.example');
  expect(invitation).toMatchObject({ email: 'joel@people.example', role: 'merchant_developer', business_id: businessId, invited_by: null, accepted_at: null });
  expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(72 * 3600 * 1000);
  const stored = await svc.services.db.one('SELECT token_hash FROM invitations WHERE id = $1', [invitation.id]);
  expect(stored.token_hash).toBe(createHash('sha256').update(token).digest('hex'));

  const accepted = await accept(token, PASSWORD, 'Joel Okello');
  expect(accepted.status).toBe(200);
  expect(accepted.body.data).toMatchObject({ email: 'joel@people.example', name: 'Joel Okello', role: 'merchant_developer', business_id: businessId, totp_enabled: false });
  const login = await new SessionClient(svc).login('joel@people.example', PASSWORD);
  expect(login.status).toBe(200);
  expect(login.body.data.state).toBe('active');

  const again = await accept(token, 'another long password');
  expect(again.status).toBe(400);
  expect(again.body.code).toBe('INVALID_STATE');
  expect(await usersNamed('joel@people.example')).toHaveLength(1);
  expect((await svc.admin.get('/v1/admin/invitations')).body.data.map((i: { id: number }) => i.id)).not.toContain(invitation.id);
});

it('keeps no usable token in the outbox once the email is sent: the stored body has it blanked, the link still works', async () => {
  const { invitation, token } = await invite('outbox@people.example');
  const body = await eventually(async () => {
    const row = await svc.services.db.oneOrNone(`SELECT text_body FROM emails WHERE recipient = $1 AND kind = 'invitation' AND sent_at IS NOT NULL`, ['outbox@people.example']);
    return row?.text_body as string | undefined;
  }, 20_000, 'the invitation email sent');
  expect(body).not.toContain(token);
  expect(body).toContain('/dashboard/accept-invitation?token=(removed once sent)');
  // its deadline printed as every email prints a time: `2026-11-27 07:07:52 UTC`, no `T`, no `Z`
  expect(body).toContain(`Choose your password here before ${invitation.expires_at.replace('T', ' ').replace(/Z$/, '')} UTC:`);
  expect(JSON.stringify(await svc.services.db.any('SELECT * FROM invitations WHERE id = $1', [invitation.id]))).not.toContain(token);
  expect((await accept(token)).status).toBe(200);
});

it('refuses an expired invitation and creates nobody', async () => {
  const { token } = await invite('late@people.example');
  clock.advance(72 * 3600 * 1000 + 1000);
  const res = await accept(token);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('INVALID_STATE');
  expect(res.body.message).toMatch(/expired/);
  expect(await usersNamed('late@people.example')).toHaveLength(0);
});

it('refuses a withdrawn invitation, and a replaced one (inviting the same email again)', async () => {
  const first = await invite('twice@people.example');
  const second = await invite('twice@people.example', 'merchant_viewer');
  expect((await accept(first.token)).status).toBe(400);
  const withdrawn = await svc.admin.delete(`/v1/admin/invitations/${second.invitation.id}`);
  expect(withdrawn.status).toBe(200);
  expect((await accept(second.token)).status).toBe(400);
  expect((await svc.admin.delete(`/v1/admin/invitations/${second.invitation.id}`)).status).toBe(404);
  expect(await usersNamed('twice@people.example')).toHaveLength(0);
});

it('refuses a short password with the field named, and the invitation still works after', async () => {
  const { token } = await invite('short@people.example');
  const res = await accept(token, 'too short');
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('VALIDATION_ERROR');
  expect(res.body.data.map((e: { field: string }) => e.field)).toContain('password');
  expect(await usersNamed('short@people.example')).toHaveLength(0);
  expect((await accept(token)).status).toBe(200);
});

it('refuses a made-up token, an invitation for an existing user, a merchant role without a business and an unknown business', async () => {
  expect((await accept('inv_' + 'x'.repeat(32))).status).toBe(400);
  const existing = await svc.admin.post('/v1/admin/invitations', { email: 'joel@people.example', role: 'merchant_viewer', business_id: businessId });
  expect(existing.status).toBe(400);
  expect(existing.body.code).toBe('INVALID_STATE');
  const noBusiness = await svc.admin.post('/v1/admin/invitations', { email: 'nobiz@people.example', role: 'merchant_viewer' });
  expect(noBusiness.status).toBe(400);
  const operatorWithBusiness = await svc.admin.post('/v1/admin/invitations', { email: 'opbiz@people.example', role: 'operator_support', business_id: businessId });
  expect(operatorWithBusiness.status).toBe(400);
  const unknown = await svc.admin.post('/v1/admin/invitations', { email: 'unknown@people.example', role: 'merchant_viewer', business_id: 999999 });
  expect(unknown.status).toBe(404);
  expect(await svc.services.db.any("SELECT 1 FROM invitations WHERE email IN ('nobiz@people.example', 'opbiz@people.example', 'unknown@people.example')")).toHaveLength(0);
});
