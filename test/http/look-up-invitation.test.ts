// Proves lookUpInvitation over HTTP: without a session, the token of an emailed link reads the invitation's email, role, business (name included) and inviter, and changes nothing; an operator's has no business; once accepted, withdrawn or expired, or for an unknown token, the answer is acceptInvitation's refusal; bad input is refused and changes nothing.
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { Clock, PASSWORD, tokenFromOutbox } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let businessId: number;
const used: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  businessId = (await createBusiness(svc, { name: 'Lookup Shop' })).id;
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

async function invite(email: string, role: string, business?: number) {
  const res = await svc.admin.post('/v1/admin/invitations', { email, role, ...(business ? { business_id: business } : {}) });
  expect(res.status).toBe(200);
  const token = await tokenFromOutbox(svc, email, 'accept-invitation', used);
  used.push(token);
  return { invitation: res.body.data, token };
}

const lookUp = (token: unknown) => svc.anon.post('/v1/admin/invitations/lookup', { token });
const REFUSAL = { code: 'INVALID_STATE', message: 'This invitation is unknown, withdrawn, used or expired; ask for a new one' };

it('reads what a merchant invitation is for, without a session, and changes nothing', async () => {
  const { invitation, token } = await invite('grace@lookup.example', 'merchant_viewer', businessId);
  const before = await databaseState(svc.services.db);
  const res = await lookUp(token);
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({
    email: 'grace@lookup.example', role: 'merchant_viewer', business_id: businessId, business_name: 'Lookup Shop', invited_by: null, expires_at: invitation.expires_at,
  });
  expect(await databaseState(svc.services.db)).toEqual(before);
  // accepted: refused as accept refuses a used one
  expect((await svc.anon.post('/v1/admin/invitations/accept', { token, password: PASSWORD })).status).toBe(200);
  const after = await lookUp(token);
  expect(after.status).toBe(400);
  expect(after.body).toMatchObject(REFUSAL);
});

it("reads an operator's invitation with no business", async () => {
  const { token } = await invite('ops@lookup.example', 'operator_support');
  const res = await lookUp(token);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ email: 'ops@lookup.example', role: 'operator_support', business_id: null, business_name: null });
});

it('refuses a withdrawn, an expired and an unknown invitation alike', async () => {
  const withdrawn = await invite('gone@lookup.example', 'merchant_viewer', businessId);
  expect((await svc.admin.delete(`/v1/admin/invitations/${withdrawn.invitation.id}`)).status).toBe(200);
  const expired = await invite('late@lookup.example', 'merchant_viewer', businessId);
  clock.advance(72 * 3600 * 1000 + 1000);
  for (const token of [withdrawn.token, expired.token, 'inv_unknownunknownunknownunknown']) {
    const res = await lookUp(token);
    expect([token, res.status, res.body.code, res.body.message]).toEqual([token, 400, REFUSAL.code, REFUSAL.message]);
  }
});

it('refuses bad input and changes nothing', async () => {
  const before = await databaseState(svc.services.db);
  for (const token of ['short', 'inv_has spaces and more than twenty', 42, undefined]) {
    const res = await lookUp(token);
    expect([token, res.status, res.body.code]).toEqual([token, 400, 'VALIDATION_ERROR']);
    expect(res.body.data).toEqual([expect.objectContaining({ field: 'token' })]);
  }
  const extra = await svc.anon.post('/v1/admin/invitations/lookup', { token: 'inv_unknownunknownunknownunknown', password: PASSWORD });
  expect(extra.status).toBe(400);
  expect(await databaseState(svc.services.db)).toEqual(before);
});
