// MID credentials: checked per service type on create and update, sealed with MASTER_KEY, never returned; checkMidCredentials fetches a token at the processor (a fake MTN over HTTP).
import { open } from '../../src/crypto/secretbox';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { createBusiness, errorFields, expectOk, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let fake: FakeMtnMomo;
let svc: TestService;

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  svc = await startTestService({ env: { MTN_MOMO_BASE_URL: fake.url, PROCESSOR_TIMEOUT_MS: '2000' } });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await fake?.stop();
});

function mtnMid(overrides: Record<string, unknown> = {}) {
  return { business_name: 'Kampala Books', service_type: 'mtn_momo', payment_method: 'MOBILE_MONEY', currency: 'UGX', credentials: fake.credentials(), ...overrides };
}

describe('MID credentials', () => {
  it('seals them with MASTER_KEY, shows only their names, and never returns a value', async () => {
    const b = await createBusiness(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid());
    const mid = expectOk(res);
    expect(mid.credentials_set).toEqual(['api_key', 'api_user', 'subscription_key', 'target_environment']);
    for (const value of Object.values(fake.credentials()).filter((v) => v !== 'sandbox')) expect(res.text).not.toContain(value);
    const row = await svc.services.db.one('SELECT credentials_enc FROM mids WHERE id = $1', [mid.id]);
    expect(row.credentials_enc).not.toContain(fake.o.apiKey);
    expect(JSON.parse(open(svc.config.masterKey, row.credentials_enc))).toEqual(fake.credentials());
    const listed = await svc.admin.get(`/v1/admin/businesses/${b.id}/mids`);
    expect(listed.text).not.toContain(fake.o.apiKey);
  });

  it('refuses missing, malformed and unknown credentials, and a method or currency the processor does not take, changing nothing', async () => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    const { api_key: _key, ...partial } = fake.credentials();
    expect(errorFields(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid({ credentials: partial })))).toEqual(['credentials.api_key']);
    expect(
      errorFields(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid({ credentials: { ...fake.credentials(), api_user: 'not-a-uuid', pin: '1234' } }))),
    ).toEqual(['credentials.api_user', 'credentials.pin']);
    expect(errorFields(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid({ payment_method: 'CARD' })))).toEqual(['payment_method']);
    expect(
      errorFields(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, { business_name: 'S', service_type: 'sandbox', payment_method: 'CARD', currency: 'USD', credentials: { key: 'x' } })),
    ).toEqual(['credentials.key']);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('updates one credential and keeps the others; a new service type needs a complete set', async () => {
    const b = await createBusiness(svc);
    const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid()));
    const newKey = 'ffffeeeeddddccccbbbbaaaa99998888';
    expectOk(await svc.admin.patch(`/v1/admin/mids/${mid.id}`, { credentials: { api_key: newKey } }));
    const row = await svc.services.db.one('SELECT credentials_enc FROM mids WHERE id = $1', [mid.id]);
    expect(JSON.parse(open(svc.config.masterKey, row.credentials_enc))).toEqual({ ...fake.credentials(), api_key: newKey });
    const sandbox = expectOk(await svc.admin.patch(`/v1/admin/mids/${mid.id}`, { service_type: 'sandbox' }));
    expect(sandbox.credentials_set).toEqual([]);
    expect(errorFields(await svc.admin.patch(`/v1/admin/mids/${mid.id}`, { service_type: 'mtn_momo' }))).toEqual([
      'credentials.api_key', 'credentials.api_user', 'credentials.subscription_key', 'credentials.target_environment',
    ]);
  });
});

describe('checkMidCredentials', () => {
  it('says ok when the processor issues a token, and shows its refusal otherwise', async () => {
    const b = await createBusiness(svc);
    const good = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid()));
    const bad = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, mtnMid({ credentials: { ...fake.credentials(), api_key: 'wrongwrongwrongwrong' } })));
    expect(expectOk(await svc.admin.post(`/v1/admin/mids/${good.id}/check-credentials`))).toEqual({
      mid_id: good.id, service_type: 'mtn_momo', ok: true, detail: 'MTN issued an access token',
    });
    const refused = expectOk(await svc.admin.post(`/v1/admin/mids/${bad.id}/check-credentials`));
    expect(refused).toMatchObject({ ok: false, detail: expect.stringContaining('401') });
    expect(JSON.stringify(refused)).not.toContain('wrongwrongwrongwrong');
    expect(svc.logs.join('\n')).not.toContain(fake.o.apiKey);
  });

  it('is ok for a sandbox MID and NOT_FOUND for an unknown one', async () => {
    const b = await createBusiness(svc);
    const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, { business_name: 'S', service_type: 'sandbox', payment_method: 'CARD', currency: 'USD' }));
    expect(expectOk(await svc.admin.post(`/v1/admin/mids/${mid.id}/check-credentials`)).ok).toBe(true);
    expect((await svc.admin.post('/v1/admin/mids/999999/check-credentials')).status).toBe(404);
  });
});
