// Proves the operator's payment link operations: an operator lists every business's links (or one business's) with their business and counts and reads any one; a merchant user sees only its own business's; an operator admin deactivates a link with a message (the merchant sees it deactivated, the change is audited) and reactivates one while support staff may not, and bad input changes nothing; a merchant's developer creates a link in the dashboard under one of its business's API tokens (audited), while another business's token, a deleted or unknown one, a missing one, and viewers, support staff and the operator key are refused, writing nothing.
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { expectOk, tokenBody } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let a: MerchantSetup;
let b: MerchantSetup;
let linkA: { link_id: string };
let linkB: { link_id: string };

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  a = await setupMerchant(svc);
  b = await setupMerchant(svc);
  linkA = expectOk(await a.client.post('/v1/payment-links', { title: 'A', amount: 100, currency: 'UGX', payment_methods: ['CARD'] }));
  linkB = expectOk(await b.client.post('/v1/payment-links', { title: 'B', amount: 200, currency: 'UGX', payment_methods: ['BANK'] }));
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const ids = (res: { body: { data: { link_id: string }[] } }) => res.body.data.map((l) => l.link_id);

it('lists every business links, or one business, with their business and counts, and reads any one', async () => {
  expect(ids(await svc.admin.get('/v1/admin/payment-links'))).toEqual([linkB.link_id, linkA.link_id]);
  expect(ids(await svc.admin.get(`/v1/admin/payment-links?business_id=${a.businessId}`))).toEqual([linkA.link_id]);
  expect((await svc.admin.get('/v1/admin/payment-links?business_id=999999')).status).toBe(404);
  const one = expectOk(await svc.admin.get(`/v1/admin/payment-links/${linkB.link_id}`));
  expect(one).toMatchObject({ link_id: linkB.link_id, business_id: b.businessId, title: 'B', attempts: 0, state: 'active' });
  expect((await svc.admin.get('/v1/admin/payment-links/pl_AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
});

it('shows a merchant user only its own business links', async () => {
  const viewer = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }), clock);
  expect(ids(await viewer.get('/v1/admin/payment-links'))).toEqual([linkA.link_id]);
  expect((await viewer.get(`/v1/admin/payment-links/${linkB.link_id}`)).status).toBe(404);
});

it('lets an operator admin deactivate a link, audited, but not support staff; bad input changes nothing', async () => {
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  expect((await support.post(`/v1/admin/payment-links/${linkA.link_id}/deactivate`, { message: 'Fraud' })).status).toBe(403);
  expect((await svc.admin.post(`/v1/admin/payment-links/${linkA.link_id}/deactivate`, { message: '' })).status).toBe(400);
  expect(expectOk(await a.client.get(`/v1/payment-links/${linkA.link_id}`)).state).toBe('active');
  const off = expectOk(await svc.admin.post(`/v1/admin/payment-links/${linkA.link_id}/deactivate`, { message: 'Reported as fraud' }));
  expect([off.state, off.deactivation_message, off.business_id]).toEqual(['deactivated', 'Reported as fraud', a.businessId]);
  expect(expectOk(await a.client.get(`/v1/payment-links/${linkA.link_id}`)).deactivation_message).toBe('Reported as fraud');
  const entry = await svc.services.db.one("SELECT after FROM audit_log WHERE action = 'deactivateAdminPaymentLink' ORDER BY id DESC LIMIT 1");
  expect(entry.after).toMatchObject({ link_id: linkA.link_id, state: 'deactivated' });
});

it('lets an operator admin reactivate a deactivated link, audited, but not support staff; an unknown link is NOT_FOUND', async () => {
  const link = expectOk(await b.client.post('/v1/payment-links', { title: 'Paused', amount: 300, currency: 'UGX', payment_methods: ['CARD'] }));
  expectOk(await b.client.post(`/v1/payment-links/${link.link_id}/deactivate`, { message: 'Back next week' }));
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  expect((await support.post(`/v1/admin/payment-links/${link.link_id}/reactivate`)).status).toBe(403);
  expect((await svc.admin.post('/v1/admin/payment-links/pl_AAAAAAAAAAAAAAAAAAAAAAAA/reactivate')).status).toBe(404);
  expect(expectOk(await b.client.get(`/v1/payment-links/${link.link_id}`)).state).toBe('deactivated');
  const on = expectOk(await svc.admin.post(`/v1/admin/payment-links/${link.link_id}/reactivate`));
  expect([on.state, on.deactivation_message, on.business_id]).toEqual(['active', null, b.businessId]);
  expect(expectOk(await b.client.get(`/v1/payment-links/${link.link_id}`)).state).toBe('active');
  const entry = await svc.services.db.one("SELECT before, after FROM audit_log WHERE action = 'reactivateAdminPaymentLink' ORDER BY id DESC LIMIT 1");
  expect([entry.before.state, entry.after.state]).toEqual(['deactivated', 'active']);
});

it("lets a merchant's developer create a link under one of its API tokens, audited; refuses other tokens and roles, writing nothing", async () => {
  const developer = await signedIn(svc, await createUser(svc, { role: 'merchant_developer', business_id: a.businessId }), clock);
  const viewer = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }), clock);
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  const deleted = expectOk(await svc.admin.post(`/v1/admin/businesses/${a.businessId}/api-tokens`, tokenBody())).id as number;
  expect((await svc.admin.delete(`/v1/admin/api-tokens/${deleted}`)).status).toBe(200);
  const body = { title: 'Made in the dashboard', amount: 300, currency: 'UGX', payment_methods: ['MOBILE_MONEY'], confirmation_message: 'Thank you' };
  const written = async () => svc.services.db.one("SELECT (SELECT count(*)::int FROM payment_links) AS links, (SELECT count(*)::int FROM audit_log WHERE action = 'createAdminPaymentLink') AS entries");
  const before = await written();

  for (const tokenId of [b.apiTokenId, deleted, 999_999]) {
    const refused = await developer.post('/v1/admin/payment-links', { ...body, api_token_id: tokenId });
    expect([refused.status, refused.body.code, refused.body.data]).toEqual([400, 'VALIDATION_ERROR', [{ field: 'api_token_id', message: expect.any(String) }]]);
  }
  // every broken rule at once: the link's own and the token's
  const both = await developer.post('/v1/admin/payment-links', { ...body, amount: undefined, api_token_id: b.apiTokenId });
  expect(both.body.data.map((f: { field: string }) => f.field).sort()).toEqual(['amount', 'api_token_id']);
  const missing = await developer.post('/v1/admin/payment-links', body);
  expect([missing.status, missing.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  const refusedCallers: { post(p: string, body: unknown): Promise<{ status: number; body: any }> }[] = [viewer, support, svc.admin];
  for (const caller of refusedCallers) {
    const res = await caller.post('/v1/admin/payment-links', { ...body, api_token_id: a.apiTokenId });
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
  }
  expect(await written()).toEqual(before);

  const made = expectOk(await developer.post('/v1/admin/payment-links', { ...body, api_token_id: a.apiTokenId }));
  expect(made).toMatchObject({ business_id: a.businessId, title: 'Made in the dashboard', amount: 300, state: 'active', attempts: 0, url: `${svc.config.publicBaseUrl}/l/${made.link_id}` });
  const row = await svc.services.db.one('SELECT business_id, api_token_id FROM payment_links WHERE link_id = $1', [made.link_id]);
  expect(row).toEqual({ business_id: a.businessId, api_token_id: a.apiTokenId });
  expect(expectOk(await a.client.get(`/v1/payment-links/${made.link_id}`)).title).toBe('Made in the dashboard');
  const entry = await svc.services.db.one("SELECT business_id, before, after FROM audit_log WHERE action = 'createAdminPaymentLink' ORDER BY id DESC LIMIT 1");
  expect(entry).toMatchObject({ business_id: a.businessId, before: null, after: { link_id: made.link_id, state: 'active' } });
});
