// Proves createWallet and listWallets: one wallet per currency, one default per business, validation and 404s.
import { createBusiness, errorFields, expectOk, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('createWallet', () => {
  it('adds a wallet that is not the default', async () => {
    const b = await createBusiness(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/wallets`, { currency: 'USD' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Wallet created');
    expect(res.body.data).toEqual({
      id: expect.any(Number), business_id: b.id, currency: 'USD', is_default: false,
      disbursement_limit: null, disbursement_daily_limit: null, disbursement_approval_threshold: null, scheduled_changes: [], created_at: expect.any(String),
    });
    const business = expectOk(await svc.admin.get(`/v1/admin/businesses/${b.id}`));
    expect(business).toMatchObject({ default_currency: 'UGX', wallets: ['UGX', 'USD'] });
  });

  it('moves the default when is_default is true', async () => {
    const b = await createBusiness(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/wallets`, { currency: 'EUR', is_default: true });
    expect(res.body.data.is_default).toBe(true);
    const rows = await svc.services.db.any('SELECT currency, is_default FROM wallets WHERE business_id = $1 ORDER BY currency', [b.id]);
    expect(rows).toEqual([
      { currency: 'EUR', is_default: true },
      { currency: 'UGX', is_default: false },
    ]);
    expect(expectOk(await svc.admin.get(`/v1/admin/businesses/${b.id}`)).default_currency).toBe('EUR');
  });

  it('refuses a second wallet in the same currency with 400 naming currency, changing nothing', async () => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    for (const body of [{ currency: 'UGX' }, { currency: 'UGX', is_default: true }]) {
      const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/wallets`, body);
      expect(errorFields(res)).toEqual(['currency']);
      expect(res.body.data[0].message).toContain('UGX');
    }
    expect(await snapshot(svc)).toEqual(before);
  });

  it.each([
    ['no currency', {}, ['currency']],
    ['a lower-case currency', { currency: 'usd' }, ['currency']],
    ['a 4-letter currency', { currency: 'USDT' }, ['currency']],
    ['a non-boolean is_default', { currency: 'USD', is_default: 'yes' }, ['is_default']],
    ['an unknown field', { currency: 'USD', balance: 10 }, ['balance']],
  ])('refuses %s with 400, changing nothing', async (_what, body, fields) => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    expect(errorFields(await svc.admin.post(`/v1/admin/businesses/${b.id}/wallets`, body))).toEqual(fields);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('answers 404 for an unknown business, changing nothing', async () => {
    const before = await snapshot(svc);
    const res = await svc.admin.post('/v1/admin/businesses/999999/wallets', { currency: 'USD' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('listWallets', () => {
  it('pages the business wallets with the paging headers', async () => {
    const b = await createBusiness(svc);
    for (const currency of ['USD', 'KES', 'EUR']) expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/wallets`, { currency }));
    const res = await svc.admin.get(`/v1/admin/businesses/${b.id}/wallets?per_page=3`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Wallets retrieved');
    expect(res.body.data.map((w: { currency: string }) => w.currency)).toEqual(['UGX', 'USD', 'KES']);
    expect(res.body.data[0].is_default).toBe(true);
    expect(res.headers.get('x-ph-total')).toBe('4');
    expect(res.headers.get('x-ph-totalpages')).toBe('2');
    expect(res.headers.get('link')).toContain(`${svc.config.publicBaseUrl}/v1/admin/businesses/${b.id}/wallets?per_page=3&page=2`);
    const second = await svc.admin.get(`/v1/admin/businesses/${b.id}/wallets?per_page=3&page=2`);
    expect(second.body.data.map((w: { currency: string }) => w.currency)).toEqual(['EUR']);
  });

  it('answers 404 for an unknown business', async () => {
    expect((await svc.admin.get('/v1/admin/businesses/999999/wallets')).status).toBe(404);
  });

  it('refuses a bad paging parameter with 400', async () => {
    const b = await createBusiness(svc);
    expect(errorFields(await svc.admin.get(`/v1/admin/businesses/${b.id}/wallets?per_page=500`))).toEqual(['per_page']);
  });
});
