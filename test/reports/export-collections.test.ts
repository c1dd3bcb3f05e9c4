// Proves the collections export (exportCollections, exportAdminCollections): a few thousand rows stream as CSV that parses back with every row once, newest first, across batches and equal times; amounts exact, times UTC as the header says; a converted collection shows its reference rate, markup (exactly applied - reference), source and as-of beside the rate applied, an unconverted one blanks; the list's filters apply; free text stays inert in a spreadsheet; a merchant gets only its own rows; bad filters are refused and change nothing.
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { complete, createBusiness, insertPending, merchantClient, setRate } from '../helpers/money-fixtures';
import type { BusinessFixture } from '../helpers/money-fixtures';
import { createUser, signedIn } from '../helpers/users';
import { EXPORT_BATCH } from '../../src/reports/exports';
import { apiTime } from '../../src/domain/time';
import { headerOf, minorOf, parseCsv, rateUnits } from './csv';

/** More than two batches, so the keyset loop goes on twice. */
const ROWS = 2 * EXPORT_BATCH + 345;
let svc: TestService;
let biz: BusinessFixture;
let other: BusinessFixture;
let marked: BusinessFixture;
let merchant: Client;
let credited: string;

beforeAll(async () => {
  svc = await startTestService({ workers: false });
  const s = svc.services;
  biz = await createBusiness(s.db, { defaultCurrency: 'UGX', fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }] });
  other = await createBusiness(s.db, { defaultCurrency: 'UGX' });
  // three collections share each time (to the microsecond), so batches end inside a run of equal times
  await s.db.none(
    `INSERT INTO collections (business_id, gateway_reference, merchant_reference, request_hash, payment_method, status, message,
       request_amount_minor, request_currency, account_amount_minor, account_currency, fee_minor, total_credit_minor,
       customer_charged, account_number, narration, expires_at, created_at, updated_at)
     SELECT $1, 'PCX' || lpad(n::text, 6, '0'), 'ORDER-' || lpad(n::text, 6, '0'), 'h', CASE WHEN n % 4 = 0 THEN 'CARD' ELSE 'MOBILE_MONEY' END,
       CASE WHEN n % 5 = 0 THEN 'FAILED' ELSE 'PENDING' END, 'Awaiting payment', 100000 + n, 'UGX', 100000 + n, 'UGX', 3000, 97000 + n,
       false, '256777000001', 'order ' || n, t + interval '30 minutes', t, t
     FROM generate_series(1, $2) AS n,
       LATERAL (SELECT timestamptz '2026-01-01T00:00:00.000001Z' + (n / 3) * interval '1.000123 second' AS t) AS g`,
    [biz.businessId, ROWS],
  );
  await s.db.none(
    `INSERT INTO collections (business_id, gateway_reference, merchant_reference, request_hash, payment_method, message,
       request_amount_minor, request_currency, account_amount_minor, account_currency, fee_minor, total_credit_minor,
       customer_charged, narration, expires_at, created_at)
     VALUES ($1, 'PCOTHERBUSINESS01', 'ORDER-000001', 'h', 'MOBILE_MONEY', 'Awaiting payment', 500, 'UGX', 500, 'UGX', 0, 500, false, 'theirs',
       now() + interval '30 minutes', '2026-01-01T00:00:10Z')`,
    [other.businessId],
  );
  const row = await insertPending(s, biz.businessId, { amountMinor: 2505n });
  await s.db.none(`UPDATE collections SET narration = $2, account_name = $3, merchant_reference = $4 WHERE id = $1`, [
    row.id, 'Two items, "gift" wrapped\r\nsecond line', '=HYPERLINK("http://x.example")', '+ORD-FORMULA',
  ]);
  await complete(s, row.id);
  credited = row.gateway_reference;
  merchant = await merchantClient(svc, biz.businessId);
  // a business with a 2.5 % FX markup: a payment in USD converted to its UGX wallet, and one in UGX
  marked = await createBusiness(s.db, { defaultCurrency: 'UGX', fxMarkupPercent: '2.5', fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }] });
  await setRate(s.db, 'USD', 'UGX', '3700');
  await complete(s, (await insertPending(s, marked.businessId, { currency: 'USD', amountMinor: 1000n })).id);
  await insertPending(s, marked.businessId, { amountMinor: 500000n });
  // building the rows through the per-row count trigger takes a while on a machine shared with other suites
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const HEADER = [
  'created_at_utc', 'updated_at_utc', 'credited_at_utc', 'gateway_reference', 'merchant_reference', 'business_id',
  'status', 'payment_method', 'request_amount', 'request_currency', 'fx_rate', 'fx_reference_rate', 'fx_markup', 'fx_source',
  'fx_as_of_utc', 'account_amount', 'account_currency', 'fee', 'total_credit', 'fee_paid_by', 'customer_account', 'customer_name',
  'customer_email', 'narration', 'institution_name', 'message',
];
const NO_FX = { fx_rate: '', fx_reference_rate: '', fx_markup: '', fx_source: '', fx_as_of_utc: '' };

async function exported(client: Client, url: string) {
  const res = await client.get(url, { headers: { accept: 'text/csv' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="collections-\d{4}-\d\d-\d\d\.csv"$/);
  expect(headerOf(res.text)).toEqual(HEADER);
  return parseCsv(res.text);
}

async function referencesInDb(where: string, values: unknown[]): Promise<string[]> {
  const rows = await svc.services.db.any<{ gateway_reference: string }>(
    `SELECT gateway_reference FROM collections WHERE ${where} ORDER BY created_at DESC, id DESC`,
    values,
  );
  return rows.map((r) => r.gateway_reference);
}

it('streams every collection of the merchant once, newest first, across batches and equal times', async () => {
  const rows = await exported(merchant, '/v1/exports/collections');
  expect(rows).toHaveLength(ROWS + 1);
  expect(new Set(rows.map((r) => r.gateway_reference)).size).toBe(ROWS + 1);
  expect(rows.map((r) => r.gateway_reference)).toEqual(await referencesInDb('business_id = $1', [biz.businessId]));
  expect(rows.some((r) => r.gateway_reference === 'PCOTHERBUSINESS01')).toBe(false);
  for (const r of rows) {
    expect(r.created_at_utc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(minorOf(r.request_amount, r.request_currency) - minorOf(r.fee, r.account_currency)).toBe(minorOf(r.total_credit, r.account_currency));
  }
  const n = rows.find((r) => r.gateway_reference === 'PCX000007')!;
  expect(n).toEqual(expect.objectContaining({
    merchant_reference: 'ORDER-000007', business_id: String(biz.businessId), status: 'PENDING', payment_method: 'MOBILE_MONEY',
    request_amount: '1000.07', request_currency: 'UGX', ...NO_FX, account_amount: '1000.07', fee: '30', total_credit: '970.07',
    fee_paid_by: 'merchant', customer_account: '256777000001', credited_at_utc: '', narration: 'order 7',
  }));
});

it('keeps the exact text of quotes, commas and line breaks, marks formula-looking text, and gives the credit time', async () => {
  const rows = await exported(merchant, '/v1/exports/collections?status=COMPLETED');
  expect(rows).toHaveLength(1);
  const r = rows[0];
  expect(r.gateway_reference).toBe(credited);
  expect(r.narration).toBe('Two items, "gift" wrapped\r\nsecond line');
  expect(r.customer_name).toBe(`'=HYPERLINK("http://x.example")`);
  expect(r.merchant_reference).toBe("'+ORD-FORMULA");
  expect(r.credited_at_utc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(r).toEqual(expect.objectContaining({ request_amount: '25.05', fee: '0.75', total_credit: '24.30' }));
});

it('shows the reference rate, markup, source and as-of of a converted collection beside the rate applied, and blanks without a conversion', async () => {
  const marker = await merchantClient(svc, marked.businessId);
  const rows = await exported(marker, '/v1/exports/collections');
  expect(rows.map((r) => r.request_currency)).toEqual(['UGX', 'USD']);
  const [plain, converted] = rows;
  expect(plain).toEqual(expect.objectContaining({ request_amount: '5000', account_amount: '5000', account_currency: 'UGX', ...NO_FX }));
  const rate = await svc.services.db.one<{ as_of: Date }>(`SELECT as_of FROM fx_rates WHERE base = 'USD' AND quote = 'UGX'`);
  // 10 USD x 3700 x 0.975 = 36075 UGX, fee 3 %
  expect(converted).toEqual(expect.objectContaining({
    status: 'COMPLETED', request_amount: '10.00', request_currency: 'USD', fx_rate: '3607.500000000000', fx_reference_rate: '3700.000000000000',
    fx_markup: '-92.500000000000', fx_source: 'operator', fx_as_of_utc: apiTime(rate.as_of), account_amount: '36075', account_currency: 'UGX',
    fee: '1082.25', total_credit: '34992.75',
  }));
  expect(rateUnits(converted.fx_markup)).toBe(rateUnits(converted.fx_rate) - rateUnits(converted.fx_reference_rate));
  // the operator's export of the business: the same rows
  expect(await exported(svc.admin, `/v1/admin/exports/collections?business_id=${marked.businessId}`)).toEqual(rows);
});

it('applies the list filters: status, method, time range and merchant reference', async () => {
  const from = '2026-01-01T00:10:00Z';
  const to = '2026-01-01T00:20:00Z';
  const rows = await exported(merchant, `/v1/exports/collections?status=FAILED&payment_method=MOBILE_MONEY&from=${from}&to=${to}`);
  const expected = await referencesInDb(
    `business_id = $1 AND status = 'FAILED' AND payment_method = 'MOBILE_MONEY' AND created_at >= $2 AND created_at <= $3`,
    [biz.businessId, from, to],
  );
  expect(expected.length).toBeGreaterThan(10);
  expect(rows.map((r) => r.gateway_reference)).toEqual(expected);
  const one = await exported(merchant, '/v1/exports/collections?merchant_reference=ORDER-000001');
  expect(one.map((r) => r.gateway_reference)).toEqual(['PCX000001']);
  const none = await exported(merchant, '/v1/exports/collections?currency=KES');
  expect(none).toEqual([]);
});

it('lets operators export every business or one, and confines a merchant user to its own', async () => {
  const all = await exported(svc.admin, '/v1/admin/exports/collections?merchant_reference=ORDER-000001');
  expect(all.map((r) => r.gateway_reference).sort()).toEqual(['PCOTHERBUSINESS01', 'PCX000001']);
  const theirs = await exported(svc.admin, `/v1/admin/exports/collections?business_id=${other.businessId}`);
  expect(theirs.map((r) => r.gateway_reference)).toEqual(['PCOTHERBUSINESS01']);
  const user = await createUser(svc, { role: 'merchant_viewer', business_id: other.businessId });
  const session = await signedIn(svc, user);
  const own = await session.get('/v1/admin/exports/collections');
  expect(own.status).toBe(200);
  expect(parseCsv(own.text).map((r) => r.gateway_reference)).toEqual(['PCOTHERBUSINESS01']);
  const denied = await session.get(`/v1/admin/exports/collections?business_id=${biz.businessId}`);
  expect(denied.status).toBe(404);
  expect((await svc.anon.get('/v1/exports/collections')).status).toBe(401);
});

it('refuses malformed filters with 400 naming the field and changes nothing', async () => {
  const { n } = await svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections');
  for (const [q, field] of [
    ['status=DONE', 'status'],
    ['from=2026-02-30T00:00:00Z', 'from'],
    ['currency=ugx', 'currency'],
    ['per_page=10', 'per_page'],
  ]) {
    const res = await merchant.get(`/v1/exports/collections?${q}`);
    expect(`${q} ${res.status}`).toBe(`${q} 400`);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data.map((e: { field: string }) => e.field)).toContain(field);
  }
  expect((await svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections')).n).toBe(n);
});

it('stops writing when the client goes away, and the service goes on answering', async () => {
  const abort = new AbortController();
  const res = await fetch(`${merchant.baseUrl}/v1/exports/collections`, { headers: { authorization: merchant.auth()! }, signal: abort.signal });
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value).startsWith('created_at_utc,')).toBe(true);
  abort.abort();
  await expect(reader.read()).rejects.toThrow();
  const again = await exported(merchant, '/v1/exports/collections?status=COMPLETED');
  expect(again).toHaveLength(1);
  expect(svc.logs.filter((l) => l.includes('streamed response failed'))).toEqual([]);
});
