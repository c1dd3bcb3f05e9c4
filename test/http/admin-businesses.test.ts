// Proves the operator's business operations (create, list, get, update, verify), their validation and operator authentication.
import LinkHeader from 'http-link-header';
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

const FULL = {
  name: 'Kampala Books Ltd',
  default_currency: 'UGX',
  rolling_reserve_percent: 10,
  rolling_reserve_months: 6,
  card_settlement_days: 7,
  fee_bearer: 'customer',
  fees: [
    { payment_method: 'CARD', percent: 3.5, fixed: 0.3 },
    { payment_method: 'MOBILE_MONEY', percent: 2.75, fixed: 0 },
  ],
};

describe('operator authentication', () => {
  it.each([
    ['no Authorization', undefined],
    ['a wrong key', 'Bearer op_wrong_key'],
    ['another scheme', `Basic ${Buffer.from('op:op_test_operator_key_0123456789').toString('base64')}`],
    ['a merchant-style header', 'JWT op_test_operator_key_0123456789'],
  ])('answers 401 UNAUTHORIZED to %s and changes nothing', async (_what, authorization) => {
    const before = await snapshot(svc);
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const created = await svc.anon.post('/v1/admin/businesses', { name: 'Intruder', default_currency: 'UGX' }, { headers });
    expect(created.status).toBe(401);
    expect(created.body).toEqual({ code: 'UNAUTHORIZED', status: 'error', message: expect.any(String), data: null });
    expect((await svc.anon.get('/v1/admin/businesses', { headers })).status).toBe(401);
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('createBusiness', () => {
  it('creates the business, its fee schedule and its default wallet', async () => {
    const res = await svc.admin.post('/v1/admin/businesses', FULL);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Business created');
    const b = res.body.data;
    expect(b).toEqual({
      id: expect.any(Number),
      name: 'Kampala Books Ltd',
      default_currency: 'UGX',
      rolling_reserve_percent: 10,
      rolling_reserve_months: 6,
      card_settlement_days: 7,
      fee_bearer: 'customer',
      fees: [
        { payment_method: 'MOBILE_MONEY', percent: 2.75, fixed: 0 },
        { payment_method: 'CARD', percent: 3.5, fixed: 0.3 },
      ],
      wallets: ['UGX'],
      verified: false,
      disbursement_fee_percent: 0,
      fx_markup_percent: 0,
      disbursement_fee_fixed: 0,
      disbursements_frozen: false,
      disbursement_approval_hours: 24,
      verified_at: null,
      verified_by: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.any(String),
    });
    const fees = await svc.services.db.any('SELECT payment_method, percent, fixed_minor FROM business_fees WHERE business_id = $1 ORDER BY 1', [b.id]);
    expect(fees).toEqual([
      { payment_method: 'CARD', percent: '3.50', fixed_minor: 30n },
      { payment_method: 'MOBILE_MONEY', percent: '2.75', fixed_minor: 0n },
    ]);
    const wallets = await svc.services.db.any('SELECT currency, is_default FROM wallets WHERE business_id = $1', [b.id]);
    expect(wallets).toEqual([{ currency: 'UGX', is_default: true }]);
  });

  it('applies the defaults to a minimal business', async () => {
    const b = expectOk(await svc.admin.post('/v1/admin/businesses', { name: 'Entebbe Crafts', default_currency: 'KES' }));
    expect(b).toMatchObject({
      rolling_reserve_percent: 0,
      rolling_reserve_months: 0,
      card_settlement_days: 0,
      fee_bearer: 'merchant',
      fees: [],
      wallets: ['KES'],
    });
  });

  it.each([
    ['no name', { default_currency: 'UGX' }, ['name']],
    ['an empty name', { name: '', default_currency: 'UGX' }, ['name']],
    ['a lower-case currency', { name: 'X', default_currency: 'ugx' }, ['default_currency']],
    ['a reserve over 100', { name: 'X', default_currency: 'UGX', rolling_reserve_percent: 100.5 }, ['rolling_reserve_percent']],
    ['a reserve with 3 decimals', { name: 'X', default_currency: 'UGX', rolling_reserve_percent: 2.555 }, ['rolling_reserve_percent']],
    ['25 reserve months', { name: 'X', default_currency: 'UGX', rolling_reserve_months: 25 }, ['rolling_reserve_months']],
    ['61 card settlement days', { name: 'X', default_currency: 'UGX', card_settlement_days: 61 }, ['card_settlement_days']],
    ['an unknown fee bearer', { name: 'X', default_currency: 'UGX', fee_bearer: 'bank' }, ['fee_bearer']],
    ['an unknown field', { name: 'X', default_currency: 'UGX', colour: 'red' }, ['colour']],
    [
      'two fee rules for one method',
      { name: 'X', default_currency: 'UGX', fees: [{ payment_method: 'CARD', percent: 1, fixed: 0 }, { payment_method: 'CARD', percent: 2, fixed: 0 }] },
      ['fees.1.payment_method'],
    ],
    ['a fixed fee with 3 decimals', { name: 'X', default_currency: 'UGX', fees: [{ payment_method: 'BANK', percent: 1, fixed: 0.001 }] }, ['fees.0.fixed']],
    ['a fee over 100 %', { name: 'X', default_currency: 'UGX', fees: [{ payment_method: 'BANK', percent: 101, fixed: 0 }] }, ['fees.0.percent']],
    ['an absurd fixed fee', { name: 'X', default_currency: 'UGX', fees: [{ payment_method: 'BANK', percent: 1, fixed: 1e13 }] }, ['fees.0.fixed']],
    ['a fee rule without percent', { name: 'X', default_currency: 'UGX', fees: [{ payment_method: 'BANK', fixed: 0 }] }, ['fees.0.percent']],
  ])('refuses %s with 400 naming the field, creating nothing', async (_what, body, fields) => {
    const before = await snapshot(svc);
    const res = await svc.admin.post('/v1/admin/businesses', body);
    expect(errorFields(res)).toEqual(fields);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('lists every broken rule at once', async () => {
    const res = await svc.admin.post('/v1/admin/businesses', { default_currency: 'usd', card_settlement_days: -1 });
    expect(errorFields(res)).toEqual(['card_settlement_days', 'default_currency', 'name']);
  });
});

describe('listBusinesses', () => {
  let list: TestService;
  beforeAll(async () => {
    list = await startTestService({ env: { PUBLIC_BASE_URL: 'https://ops.paycollect.example' } });
    for (let i = 1; i <= 5; i++) await createBusiness(list, { name: `Listed ${i}` });
  });
  afterAll(async () => {
    await list?.close();
  });

  it('pages newest first with X-PH-Total, X-PH-TotalPages and Link on PUBLIC_BASE_URL', async () => {
    const res = await list.admin.get('/v1/admin/businesses?per_page=2');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Businesses retrieved');
    expect(res.body.data.map((b: { name: string }) => b.name)).toEqual(['Listed 5', 'Listed 4']);
    expect(res.headers.get('x-ph-total')).toBe('5');
    expect(res.headers.get('x-ph-totalpages')).toBe('3');
    const link = LinkHeader.parse(res.headers.get('link') ?? '');
    expect(link.rel('next')[0].uri).toBe('https://ops.paycollect.example/v1/admin/businesses?per_page=2&page=2');
    expect(link.rel('last')[0].uri).toBe('https://ops.paycollect.example/v1/admin/businesses?per_page=2&page=3');
    expect(link.rel('first')[0].uri).toBe('https://ops.paycollect.example/v1/admin/businesses?per_page=2&page=1');
    expect(link.has('rel', 'prev')).toBe(false);
  });

  it('serves a later page and an offset', async () => {
    const page3 = await list.admin.get('/v1/admin/businesses?per_page=2&page=3');
    expect(page3.body.data.map((b: { name: string }) => b.name)).toEqual(['Listed 1']);
    const link = LinkHeader.parse(page3.headers.get('link') ?? '');
    expect(link.rel('prev')[0].uri).toBe('https://ops.paycollect.example/v1/admin/businesses?per_page=2&page=2');
    expect(link.has('rel', 'next')).toBe(false);
    const offset = await list.admin.get('/v1/admin/businesses?per_page=2&offset=1');
    expect(offset.body.data.map((b: { name: string }) => b.name)).toEqual(['Listed 4', 'Listed 3']);
    const beyond = await list.admin.get('/v1/admin/businesses?page=9');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.headers.get('x-ph-total')).toBe('5');
  });

  it('defaults to 10 a page', async () => {
    const res = await list.admin.get('/v1/admin/businesses');
    expect(res.body.data).toHaveLength(5);
    expect(res.headers.get('x-ph-totalpages')).toBe('1');
  });

  it.each([
    ['per_page=101', 'per_page'],
    ['per_page=0', 'per_page'],
    ['page=0', 'page'],
    ['offset=-1', 'offset'],
    ['colour=red', 'colour'],
  ])('refuses %s with 400 naming the parameter', async (query, field) => {
    const res = await list.admin.get(`/v1/admin/businesses?${query}`);
    expect(errorFields(res)).toEqual([field]);
  });
});

describe('getBusiness', () => {
  it('returns the business with its wallets', async () => {
    const created = await createBusiness(svc, { name: 'Gulu Grocers' });
    expectOk(await svc.admin.post(`/v1/admin/businesses/${created.id}/wallets`, { currency: 'USD' }));
    const res = await svc.admin.get(`/v1/admin/businesses/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Business retrieved');
    expect(res.body.data).toEqual({ ...created, wallets: ['UGX', 'USD'] });
  });

  it('answers 404 NOT_FOUND for an unknown id', async () => {
    const res = await svc.admin.get('/v1/admin/businesses/999999');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('refuses an id that is not a positive 32-bit integer with 400', async () => {
    for (const id of ['abc', '0', '2147483648', '99999999999999']) {
      expect(errorFields(await svc.admin.get(`/v1/admin/businesses/${id}`))).toEqual(['business_id']);
    }
  });
});

describe('updateBusiness', () => {
  it('changes only the fields sent', async () => {
    const b = await createBusiness(svc, FULL);
    const res = await svc.admin.patch(`/v1/admin/businesses/${b.id}`, { name: 'Kampala Books & Stationery', card_settlement_days: 3 });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Business updated');
    expect(res.body.data).toEqual({ ...b, name: 'Kampala Books & Stationery', card_settlement_days: 3, updated_at: expect.any(String) });
  });

  it('replaces the whole fee schedule when fees are sent', async () => {
    const b = await createBusiness(svc, FULL);
    const res = await svc.admin.patch(`/v1/admin/businesses/${b.id}`, { fees: [{ payment_method: 'BANK', percent: 1.25, fixed: 500 }] });
    expect(res.body.data.fees).toEqual([{ payment_method: 'BANK', percent: 1.25, fixed: 500 }]);
    const rows = await svc.services.db.any('SELECT payment_method, fixed_minor FROM business_fees WHERE business_id = $1', [b.id]);
    expect(rows).toEqual([{ payment_method: 'BANK', fixed_minor: 50000n }]);
    const cleared = await svc.admin.patch(`/v1/admin/businesses/${b.id}`, { fees: [] });
    expect(cleared.body.data.fees).toEqual([]);
  });

  it('moves the default wallet to another wallet the business holds', async () => {
    const b = await createBusiness(svc);
    expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/wallets`, { currency: 'USD' }));
    const res = await svc.admin.patch(`/v1/admin/businesses/${b.id}`, { default_currency: 'USD' });
    expect(res.body.data.default_currency).toBe('USD');
    expect(res.body.data.wallets).toEqual(['USD', 'UGX']);
    const wallets = await svc.services.db.any('SELECT currency, is_default FROM wallets WHERE business_id = $1 ORDER BY currency', [b.id]);
    expect(wallets).toEqual([
      { currency: 'UGX', is_default: false },
      { currency: 'USD', is_default: true },
    ]);
  });

  it('refuses a default currency the business has no wallet for, changing nothing', async () => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    const res = await svc.admin.patch(`/v1/admin/businesses/${b.id}`, { default_currency: 'EUR', name: 'Renamed' });
    expect(errorFields(res)).toEqual(['default_currency']);
    expect(await snapshot(svc)).toEqual(before);
  });

  it.each([
    ['an empty body', {}, ['body']],
    ['an unknown field', { verified: true }, ['verified']],
    ['a negative reserve', { rolling_reserve_percent: -1 }, ['rolling_reserve_percent']],
    ['two rules for one method', { fees: [{ payment_method: 'BANK', percent: 1, fixed: 0 }, { payment_method: 'BANK', percent: 1, fixed: 0 }] }, ['fees.1.payment_method']],
  ])('refuses %s with 400, changing nothing', async (_what, body, fields) => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    const res = await svc.admin.patch(`/v1/admin/businesses/${b.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(errorFields(res)).toEqual(expect.arrayContaining(fields));
    expect(await snapshot(svc)).toEqual(before);
  });

  it('answers 404 for an unknown business', async () => {
    const res = await svc.admin.patch('/v1/admin/businesses/999999', { name: 'Ghost' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('verifyBusiness', () => {
  it('records the caller (the operator key) as who verified, when and what was reviewed', async () => {
    const b = await createBusiness(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/verify`, { note: 'KYC documents and 6 sandbox cases' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Business verified');
    expect(res.body.data).toMatchObject({ id: b.id, verified: true, verified_by: 'operator key', verified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const row = await svc.services.db.one('SELECT verified_at, verified_by, verification_note FROM businesses WHERE id = $1', [b.id]);
    expect(row).toEqual({ verified_at: expect.any(Date), verified_by: 'operator key', verification_note: 'KYC documents and 6 sandbox cases' });
    expect(Math.abs(row.verified_at.getTime() - Date.now())).toBeLessThan(60_000);
    expect((await svc.admin.get(`/v1/admin/businesses/${b.id}`)).body.data.verified).toBe(true);
  });

  it('ignores the deprecated verified_by of the body: nobody can verify in another name', async () => {
    const b = await createBusiness(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/verify`, { verified_by: 'ops.jane' });
    expect(res.status).toBe(200);
    expect(res.body.data.verified_by).toBe('operator key');
  });

  it.each([
    ['an empty verified_by', { verified_by: '' }, ['verified_by']],
    ['a note over 1024 characters', { note: 'x'.repeat(1025) }, ['note']],
    ['an unknown field', { verified_by: 'ops', when: 'now' }, ['when']],
  ])('refuses %s with 400, changing nothing', async (_what, body, fields) => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    expect(errorFields(await svc.admin.post(`/v1/admin/businesses/${b.id}/verify`, body))).toEqual(fields);
    expect(await snapshot(svc)).toEqual(before);
  });

  it.each([
    ['no body', undefined],
    ['zero bytes of JSON', ''],
  ])('refuses %s: the body is required, and nothing is verified', async (_what, raw) => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/verify`, undefined, raw === undefined ? {} : { raw, headers: { 'content-type': 'application/json' } });
    expect([res.status, res.body.data]).toEqual([400, [{ field: 'requestBody', message: 'is required' }]]);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('answers 404 for an unknown business', async () => {
    const res = await svc.admin.post('/v1/admin/businesses/999999/verify', {});
    expect(res.status).toBe(404);
  });
});
