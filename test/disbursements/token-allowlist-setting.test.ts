// Proves the IP allowlist setting of an API token (updateApiToken's and createApiToken's ip_allowlist): an owner sets it, the record shows it, the change is audited, and disbursements then come only from its addresses (403 IP_NOT_ALLOWED from elsewhere); a wider list, and null (no list: anywhere, in the sandbox), take effect after their notice; a developer is FORBIDDEN and a bad block is a VALIDATION_ERROR at its entry, each changing nothing.
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import { noticeOver, tokenBody } from '../helpers/merchants';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, signedIn } from '../helpers/users';

let svc: TestService;
let m: MerchantSetup;
beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  m = await setupMerchant(svc);
  await svc.database.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const db = () => svc.database.db;
const stored = async () => (await db().one('SELECT ip_allowlist::text[] AS a FROM api_tokens WHERE id = $1', [m.apiTokenId])).a;
const disburse = () =>
  m.client.post('/v1/disbursements', {
    amount: 100, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('PAY'),
  }, { headers: { 'secret-key': m.apiSecret } });

it('an owner sets it: shown, audited, and disbursements come only from its addresses', async () => {
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  const set = await owner.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'] });
  expect(set.status).toBe(200);
  expect(set.body.data.ip_allowlist).toEqual(['203.0.113.0/24', '2001:db8::/32']);
  expect(await stored()).toEqual(['203.0.113.0/24', '2001:db8::/32']);
  const audit = await db().one("SELECT before, after FROM audit_log WHERE action = 'updateApiToken' AND target_id = $1 ORDER BY id DESC LIMIT 1", [String(m.apiTokenId)]);
  expect(audit.before.ip_allowlist).toBeNull();
  expect(audit.after.ip_allowlist).toEqual(['203.0.113.0/24', '2001:db8::/32']);
  // the test client calls from the loopback address, which is not on the list
  const refused = await disburse();
  expect(refused.status).toBe(403);
  expect(refused.body.code).toBe('IP_NOT_ALLOWED');
  // the loopback addresses widen the list: in force only after the notice
  const wider = await owner.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['127.0.0.1', '::1'] });
  expect(wider.body.data).toMatchObject({ ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'], scheduled_changes: [{ field: 'ip_allowlist', value: ['127.0.0.1/32', '::1/128'] }] });
  expect((await disburse()).status).toBe(403);
  await noticeOver(svc);
  expect(await stored()).toEqual(['127.0.0.1/32', '::1/128']);
  expect((await disburse()).status).toBe(200);
  const removed = await owner.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: null });
  expect(removed.body.data).toMatchObject({ ip_allowlist: ['127.0.0.1/32', '::1/128'], scheduled_changes: [{ field: 'ip_allowlist', value: null }] });
  await noticeOver(svc);
  expect(await stored()).toBeNull();
});

it('refuses a developer and a bad block, changing nothing', async () => {
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  expect((await owner.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['198.51.100.7'] })).status).toBe(200);
  const developer = await signedIn(svc, await createUser(svc, { role: 'merchant_developer', business_id: m.businessId }));
  const forbidden = await developer.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['0.0.0.0/0'] });
  expect(forbidden.status).toBe(403);
  expect(forbidden.body.code).toBe('FORBIDDEN');
  // a developer still changes the token's notifications
  expect((await developer.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { email_user: true })).status).toBe(200);
  const bad = await owner.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { ip_allowlist: ['203.0.113.0/24', '203.0.113.7/24'], email_merchant: true });
  expect(bad.status).toBe(400);
  expect(bad.body.code).toBe('VALIDATION_ERROR');
  expect(JSON.stringify(bad.body)).toContain('ip_allowlist.1');
  expect(JSON.stringify(bad.body)).toContain('has bits set after the first 24');
  expect(await stored()).toEqual(['198.51.100.7/32']);
  expect((await db().one('SELECT email_merchant FROM api_tokens WHERE id = $1', [m.apiTokenId])).email_merchant).toBe(false);
});

describe('createApiToken with ip_allowlist', () => {
  const tokenCount = async () => (await db().one('SELECT count(*)::int AS n FROM api_tokens WHERE business_id = $1', [m.businessId])).n;

  it('refuses a developer and a bad block, creating nothing; a developer still creates a token without a list', async () => {
    const before = await tokenCount();
    const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
    const developer = await signedIn(svc, await createUser(svc, { role: 'merchant_developer', business_id: m.businessId }));
    const forbidden = await developer.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, tokenBody({ ip_allowlist: ['0.0.0.0/0'] }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    // a null list is still the field: the developer is refused for sending it at all
    expect((await developer.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, tokenBody({ ip_allowlist: null }))).status).toBe(403);
    const bad = await owner.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, tokenBody({ ip_allowlist: ['203.0.113.0/24', '203.0.113.7/24'] }));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(bad.body)).toContain('ip_allowlist.1');
    expect(JSON.stringify(bad.body)).toContain('has bits set after the first 24');
    expect(await tokenCount()).toBe(before);
    const plain = await developer.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, tokenBody());
    expect(plain.status).toBe(200);
    expect(plain.body.data.ip_allowlist).toBeNull();
    expect((await owner.delete(`/v1/admin/api-tokens/${plain.body.data.id}`)).status).toBe(200);
  });

  it('an owner creates a token with a list: shown as stored, in the creation audit entry, and an empty list is no list', async () => {
    const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
    const created = await owner.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, tokenBody({ ip_allowlist: ['203.0.113.0/24', '198.51.100.7'] }));
    expect(created.status).toBe(200);
    expect(created.body.data.ip_allowlist).toEqual(['203.0.113.0/24', '198.51.100.7/32']);
    const id = created.body.data.id;
    expect((await db().one('SELECT ip_allowlist::text[] AS a FROM api_tokens WHERE id = $1', [id])).a).toEqual(['203.0.113.0/24', '198.51.100.7/32']);
    const audit = await db().one("SELECT before, after FROM audit_log WHERE action = 'createApiToken' AND target_id = $1", [String(id)]);
    expect(audit.before).toBeNull();
    expect(audit.after.ip_allowlist).toEqual(['203.0.113.0/24', '198.51.100.7/32']);
    expect((await owner.delete(`/v1/admin/api-tokens/${id}`)).status).toBe(200);
    const empty = await owner.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, tokenBody({ ip_allowlist: [] }));
    expect(empty.status).toBe(200);
    expect(empty.body.data.ip_allowlist).toBeNull();
    expect((await db().one('SELECT ip_allowlist FROM api_tokens WHERE id = $1', [empty.body.data.id])).ip_allowlist).toBeNull();
  });
});
