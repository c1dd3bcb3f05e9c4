// Proves GET /v1/admin/businesses/{business_id}/wallets/{currency}/postings (listWalletPostings): a wallet's postings newest first, paged with X-PH-* and Link; 404 for an unknown business or wallet.
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { complete, createBusiness, insertPending } from '../helpers/money-fixtures';
import type { BusinessFixture } from '../helpers/money-fixtures';

let svc: TestService;
let biz: BusinessFixture;
const refs: string[] = [];
beforeAll(async () => {
  svc = await startTestService();
  const s = svc.services;
  biz = await createBusiness(s.db, { defaultCurrency: 'UGX', wallets: ['USD'], reservePercent: '10', reserveMonths: 1, fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }] });
  for (const amountMinor of [10000n, 20000n, 30000n]) {
    const row = await insertPending(s, biz.businessId, { amountMinor });
    await complete(s, row.id);
    refs.push(row.gateway_reference);
  }
});
afterAll(async () => {
  await svc?.close();
});

const url = (id: number, currency: string, q = '') => `/v1/admin/businesses/${id}/wallets/${currency}/postings${q}`;

it('lists the wallet postings newest first with their collection and kind', async () => {
  const res = await svc.admin.get(url(biz.businessId, 'UGX'));
  expect(res.status).toBe(200);
  expect(res.headers.get('x-ph-total')).toBe('6');
  expect(res.headers.get('x-ph-totalpages')).toBe('1');
  const data = res.body.data;
  expect(data.map((p: { account: string; amount: number; kind: string; gateway_reference: string }) => [p.gateway_reference, p.account, p.amount, p.kind])).toEqual([
    // 300.00: fee 9.00, credit 291.00, reserve 29.10
    [refs[2], 'available', 261.9, 'collection_credit'],
    [refs[2], 'reserved', 29.1, 'reserve_hold'],
    [refs[1], 'available', 174.6, 'collection_credit'],
    [refs[1], 'reserved', 19.4, 'reserve_hold'],
    [refs[0], 'available', 87.3, 'collection_credit'],
    [refs[0], 'reserved', 9.7, 'reserve_hold'],
  ]);
  expect(data[0]).toEqual({
    id: expect.any(Number),
    journal_id: expect.any(Number),
    gateway_reference: refs[2],
    account: 'available',
    amount: 261.9,
    currency: 'UGX',
    kind: 'collection_credit',
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
  });
  expect(data[0].journal_id).toBe(data[1].journal_id);
});

it('pages with per_page and page, and links first, prev, next and last', async () => {
  const res = await svc.admin.get(url(biz.businessId, 'UGX', '?per_page=4&page=2'));
  expect(res.status).toBe(200);
  expect(res.body.data.map((p: { amount: number }) => p.amount)).toEqual([87.3, 9.7]);
  expect(res.headers.get('x-ph-total')).toBe('6');
  expect(res.headers.get('x-ph-totalpages')).toBe('2');
  const link = res.headers.get('link') ?? '';
  const base = `${svc.config.publicBaseUrl}${url(biz.businessId, 'UGX')}`;
  expect(link).toMatch(new RegExp(`<${base.replace(/[.?]/g, '\\$&')}\\?per_page=4&page=1>; rel="?first"?`));
  expect(link).toMatch(/page=1>; rel="?prev"?/);
  expect(link).toMatch(/page=2>; rel="?last"?/);
  expect(link).not.toMatch(/rel="?next"?/);
  const offset = await svc.admin.get(url(biz.businessId, 'UGX', '?per_page=2&offset=5'));
  expect(offset.body.data.map((p: { amount: number }) => p.amount)).toEqual([9.7]);
});

it('shows releases as a negative reserved and a positive available posting', async () => {
  expect(await svc.services.ledger.releaseDue(new Date(Date.now() + 40 * 86_400_000))).toBe(3);
  const res = await svc.admin.get(url(biz.businessId, 'UGX', '?per_page=2'));
  expect(res.body.data.map((p: { account: string; amount: number; kind: string }) => [p.account, p.amount, p.kind])).toEqual([
    // the last hold released (due last) is the newest
    ['available', 29.1, 'reserve_release'],
    ['reserved', -29.1, 'reserve_release'],
  ]);
  expect(res.headers.get('x-ph-total')).toBe('12');
});

it('lists an empty wallet as an empty page', async () => {
  const res = await svc.admin.get(url(biz.businessId, 'USD'));
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual([]);
  expect(res.headers.get('x-ph-total')).toBe('0');
});

it('answers 404 for an unknown business or a wallet the business does not have', async () => {
  for (const [id, currency] of [
    [999999, 'UGX'],
    [biz.businessId, 'EUR'],
  ] as const) {
    const res = await svc.admin.get(url(id, currency));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  }
  const outOfRange = await svc.admin.get(url(2 ** 40, 'UGX'));
  expect(outOfRange.status).toBe(400);
  expect(outOfRange.body.data).toEqual([expect.objectContaining({ field: 'business_id' })]);
});

it('refuses malformed parameters with 400 VALIDATION_ERROR', async () => {
  for (const [path, field] of [
    [url(biz.businessId, 'ugx'), 'currency'],
    [url(biz.businessId, 'UGX', '?per_page=0'), 'per_page'],
    [url(biz.businessId, 'UGX', '?per_page=101'), 'per_page'],
    [url(0, 'UGX'), 'business_id'],
  ]) {
    const res = await svc.admin.get(path);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data.map((e: { field: string }) => e.field)).toContain(field);
  }
});

it('refuses a caller without the operator key with 401', async () => {
  const res = await svc.anon.get(url(biz.businessId, 'UGX'));
  expect(res.status).toBe(401);
  expect(res.body.code).toBe('UNAUTHORIZED');
});
