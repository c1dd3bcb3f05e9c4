// Proves createMid, listMids and updateMid: every field, the password sealed at rest and never returned, known processors only.
import { open } from '../../src/crypto/secretbox';
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

const PASSWORD = 'mid-Pa55word-never-shown';

const FULL_MID = {
  business_name: 'Kampala Books Ltd',
  service_type: 'sandbox',
  payment_method: 'MOBILE_MONEY',
  currency: 'UGX',
  allowed_traffic: ['UG', 'KE'],
  merchant_operator: 'MTN',
  merchant_username: 'kampalabooks',
  merchant_password: PASSWORD,
  processing_rank: 2,
  reject_first_time_depositors: true,
  active: false,
  collects: true,
  disburses: true,
};

describe('createMid', () => {
  it('creates a MID with every field, the password sealed with MASTER_KEY and never returned', async () => {
    const b = await createBusiness(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, FULL_MID);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('MID created');
    const { merchant_password: _pw, ...shown } = FULL_MID;
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      business_id: b.id,
      ...shown,
      has_password: true,
      credentials_set: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.text).not.toContain(PASSWORD);
    const row = await svc.services.db.one('SELECT merchant_password_enc, allowed_traffic FROM mids WHERE id = $1', [res.body.data.id]);
    expect(row.merchant_password_enc).not.toContain(PASSWORD);
    expect(open(svc.config.masterKey, row.merchant_password_enc)).toBe(PASSWORD);
    expect(row.allowed_traffic).toEqual(['UG', 'KE']);
  });

  it('applies the defaults: ALL traffic, rank 1, active, no password', async () => {
    const b = await createBusiness(svc);
    const mid = expectOk(
      await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, { business_name: 'Shop', service_type: 'sandbox', payment_method: 'CARD', currency: 'USD' }),
    );
    expect(mid).toMatchObject({
      allowed_traffic: 'ALL',
      merchant_operator: null,
      merchant_username: null,
      has_password: false,
      processing_rank: 1,
      reject_first_time_depositors: false,
      active: true,
      collects: true,
      disburses: false,
    });
    const row = await svc.services.db.one('SELECT allowed_traffic, merchant_password_enc FROM mids WHERE id = $1', [mid.id]);
    expect(row).toEqual({ allowed_traffic: 'ALL', merchant_password_enc: null });
  });

  const base = { business_name: 'Shop', service_type: 'sandbox', payment_method: 'CARD', currency: 'USD' };
  it.each([
    ['an unknown processor', { ...base, service_type: 'acme-pay' }, ['service_type']],
    ['an unknown payment method', { ...base, payment_method: 'CHEQUE' }, ['payment_method']],
    ['a bad currency', { ...base, currency: 'us' }, ['currency']],
    ['no business_name', { service_type: 'sandbox', payment_method: 'CARD', currency: 'USD' }, ['business_name']],
    ['rank 0', { ...base, processing_rank: 0 }, ['processing_rank']],
    ['traffic "SOME"', { ...base, allowed_traffic: 'SOME' }, ['allowed_traffic']],
    ['a lower-case country', { ...base, allowed_traffic: ['ug'] }, ['allowed_traffic.0']],
    ['an empty country list', { ...base, allowed_traffic: [] }, ['allowed_traffic']],
    ['an unknown field', { ...base, secret: 'x' }, ['secret']],
    ['a CARD MID that disburses', { ...base, disburses: true }, ['disburses']],
    ['a MID that neither collects nor disburses', { ...base, collects: false }, ['disburses']],
    ['a BTCPay MID that disburses (BTCPay pays nothing out)', { business_name: 'Shop', service_type: 'btcpay', payment_method: 'CRYPTO', currency: 'USD', disburses: true }, ['disburses']],
  ])('refuses %s with 400 naming the field, changing nothing', async (_what, body, fields) => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, body);
    expect(errorFields(res)).toEqual(expect.arrayContaining(fields));
    expect(await snapshot(svc)).toEqual(before);
  });

  it('answers 404 for an unknown business', async () => {
    const before = await snapshot(svc);
    expect((await svc.admin.post('/v1/admin/businesses/999999/mids', base)).status).toBe(404);
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('listMids', () => {
  it('pages the MIDs of one business, never with a password', async () => {
    const b = await createBusiness(svc);
    const other = await createBusiness(svc);
    for (const currency of ['UGX', 'USD', 'KES']) {
      expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, { ...FULL_MID, currency }));
    }
    expectOk(await svc.admin.post(`/v1/admin/businesses/${other.id}/mids`, FULL_MID));
    const res = await svc.admin.get(`/v1/admin/businesses/${b.id}/mids?per_page=2`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('MIDs retrieved');
    expect(res.body.data.map((m: { currency: string }) => m.currency)).toEqual(['UGX', 'USD']);
    expect(res.body.data.every((m: { business_id: number }) => m.business_id === b.id)).toBe(true);
    expect(res.headers.get('x-ph-total')).toBe('3');
    expect(res.headers.get('x-ph-totalpages')).toBe('2');
    expect(res.text).not.toContain(PASSWORD);
    expect(res.text).not.toContain('merchant_password');
  });

  it('answers 404 for an unknown business', async () => {
    expect((await svc.admin.get('/v1/admin/businesses/999999/mids')).status).toBe(404);
  });
});

describe('updateMid', () => {
  it('changes only the fields sent, and re-seals a new password', async () => {
    const b = await createBusiness(svc);
    const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, FULL_MID));
    const res = await svc.admin.patch(`/v1/admin/mids/${mid.id}`, { active: true, processing_rank: 1, allowed_traffic: 'ALL', merchant_password: 'n3w-password' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('MID updated');
    expect(res.body.data).toEqual({ ...mid, active: true, processing_rank: 1, allowed_traffic: 'ALL', updated_at: expect.any(String) });
    expect(res.text).not.toContain('n3w-password');
    const row = await svc.services.db.one('SELECT merchant_password_enc, allowed_traffic FROM mids WHERE id = $1', [mid.id]);
    expect(open(svc.config.masterKey, row.merchant_password_enc)).toBe('n3w-password');
    expect(row.allowed_traffic).toBe('ALL');
  });

  it('sets a country list', async () => {
    const b = await createBusiness(svc);
    const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, FULL_MID));
    const res = await svc.admin.patch(`/v1/admin/mids/${mid.id}`, { allowed_traffic: ['TZ'] });
    expect(res.body.data.allowed_traffic).toEqual(['TZ']);
  });

  it.each([
    ['an unknown processor', { service_type: 'acme-pay' }, ['service_type']],
    ['an empty body', {}, ['body']],
    ['a business_id change', { business_id: 2 }, ['business_id']],
    ['a null rank', { processing_rank: null }, ['processing_rank']],
  ])('refuses %s with 400, changing nothing', async (_what, body, fields) => {
    const b = await createBusiness(svc);
    const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, FULL_MID));
    const before = await snapshot(svc);
    const res = await svc.admin.patch(`/v1/admin/mids/${mid.id}`, body);
    expect(errorFields(res)).toEqual(expect.arrayContaining(fields));
    expect(await snapshot(svc)).toEqual(before);
  });

  it('answers 404 for an unknown MID', async () => {
    expect((await svc.admin.patch('/v1/admin/mids/999999', { active: false })).status).toBe(404);
  });

  it('sets what a MID is for: a mobile money MID may disburse too, a card MID may not, and none may do nothing', async () => {
    const b = await createBusiness(svc);
    const phone = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, { business_name: 'Shop', service_type: 'sandbox', payment_method: 'MOBILE_MONEY', currency: 'UGX' }));
    const card = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, { business_name: 'Shop', service_type: 'sandbox', payment_method: 'CARD', currency: 'USD' }));
    expect(expectOk(await svc.admin.patch(`/v1/admin/mids/${phone.id}`, { disburses: true }))).toMatchObject({ collects: true, disburses: true });
    expect(expectOk(await svc.admin.patch(`/v1/admin/mids/${phone.id}`, { collects: false }))).toMatchObject({ collects: false, disburses: true });
    const before = await snapshot(svc);
    expect(errorFields(await svc.admin.patch(`/v1/admin/mids/${phone.id}`, { disburses: false }))).toEqual(['disburses']);
    expect(errorFields(await svc.admin.patch(`/v1/admin/mids/${card.id}`, { disburses: true }))).toEqual(['disburses']);
    // a disbursing MID moved to a method that cannot disburse is refused too
    expect(errorFields(await svc.admin.patch(`/v1/admin/mids/${phone.id}`, { payment_method: 'CARD', currency: 'USD' }))).toEqual(['disburses']);
    expect(await snapshot(svc)).toEqual(before);
    const rows = await svc.services.db.any('SELECT id, collects, disburses FROM mids WHERE business_id = $1 ORDER BY id', [b.id]);
    expect(rows).toEqual([{ id: phone.id, collects: false, disburses: true }, { id: card.id, collects: true, disburses: false }]);
  });
});
