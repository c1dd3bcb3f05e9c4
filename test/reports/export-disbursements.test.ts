// Proves the disbursements export (exportDisbursements, exportAdminDisbursements) over disbursements made through the public API on the simulator: a completed, a failed and a processing one stream as CSV whose rows equal the list's records for the same filters (exact amounts and fees, states, reasons, payee), newest first; free text stays inert in a spreadsheet; the list's filters apply; batches join without a row twice or lost; the merchant export needs the Secret-Key like every disbursement call; a merchant gets only its own, a merchant user its own business's; bad filters are refused and change nothing.
import { disbursingMerchant, eventually, ref } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { createUser, signedIn } from '../helpers/users';
import { DISBURSEMENTS_CSV_HEADER } from '../../src/reports/exports';
import { headerOf, minorOf, parseCsv } from './csv';

let svc: TestService;
let shop: MerchantSetup;
let other: MerchantSetup;
const made: Record<'completed' | 'failed' | 'processing' | 'theirs', string> = {} as never;

const secret = (m: MerchantSetup) => ({ headers: { 'secret-key': m.apiSecret } });

const funded = () => disbursingMerchant(svc, 100000);

/** A disbursement through the merchant API, waited for until it reaches `status`. */
async function disburse(m: MerchantSetup, body: Record<string, unknown>, status: string): Promise<string> {
  const res = await m.client.post('/v1/disbursements', {
    currency: 'UGX', payment_method: 'MOBILE_MONEY', account_name: 'Okello Transport Ltd', merchant_reference: ref('PAY'), ...body,
  }, secret(m));
  expect(res.status).toBe(200);
  const reference = res.body.data.gateway_reference as string;
  await eventually(async () => {
    const r = await m.client.get(`/v1/disbursements/${reference}`, secret(m));
    return r.body.data.transaction_status === status ? true : undefined;
  }, 15_000, `disbursement ${reference} ${status}`);
  return reference;
}

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  shop = await funded();
  other = await funded();
  await svc.database.db.none('UPDATE businesses SET disbursement_fee_percent = 1.5, disbursement_fee_fixed_minor = 5000 WHERE id = $1', [shop.businessId]);
  made.completed = await disburse(shop, { amount: 20000.5, account_number: '256772123456', narration: '=HYPERLINK("http://x.example"), "pay" now' }, 'COMPLETED');
  made.failed = await disburse(shop, { amount: 15000, account_number: '256772123502', account_name: '@Nakato Grace' }, 'FAILED');
  made.processing = await disburse(shop, { amount: 1000, payment_method: 'BANK', bank_code: '010', account_number: '0123456503' }, 'PROCESSING');
  made.theirs = await disburse(other, { amount: 3000, account_number: '256772123456' }, 'COMPLETED');
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

async function exported(client: Client, url: string, headers: Record<string, string> = {}) {
  const res = await client.get(url, { headers: { accept: 'text/csv', ...headers } });
  expect(`${url} ${res.status}`).toBe(`${url} 200`);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="disbursements-\d{4}-\d\d-\d\d\.csv"$/);
  expect(headerOf(res.text)).toEqual(DISBURSEMENTS_CSV_HEADER);
  expect(res.text.endsWith('\r\n')).toBe(true);
  return parseCsv(res.text);
}
const shopExport = (query = '') => exported(shop.client, `/v1/exports/disbursements${query ? `?${query}` : ''}`, secret(shop).headers);

const refs = (rows: Record<string, string>[]) => rows.map((r) => r.gateway_reference);

/** A CSV row read back as the list's record: the cells' text as the record's types, a spreadsheet's guard apostrophe removed. */
function asRecord(r: Record<string, string>) {
  const text = (v: string) => (v === '' ? null : v.replace(/^'(?=[=+\-@\t\r])/, ''));
  return {
    id: r.id, gateway_reference: r.gateway_reference, merchant_reference: text(r.merchant_reference),
    amount: Number(minorOf(r.amount, r.currency)) / 100, fee: Number(minorOf(r.fee, r.currency)) / 100, currency: r.currency,
    payment_method: r.payment_method, account_number: text(r.account_number), bank_code: text(r.bank_code), account_name: text(r.account_name),
    narration: text(r.narration), transaction_status: r.status, transaction_type: 'disbursement', pending_reason: text(r.pending_reason),
    failure_reason: text(r.failure_reason), message: text(r.message), created_at: r.created_at_utc, updated_at: r.updated_at_utc,
  };
}

/** What the merchant's disbursement list answers for the same filters, newest first. */
async function listed(query: string) {
  const res = await shop.client.get(`/v1/disbursements?per_page=100${query ? `&${query}` : ''}`, secret(shop));
  expect(res.status).toBe(200);
  return res.body.data;
}

it("gives each of the merchant's disbursements once, newest first, its row equal to the list's record", async () => {
  const rows = await shopExport();
  expect(refs(rows)).toEqual([made.processing, made.failed, made.completed]);
  expect(rows.map(asRecord)).toEqual(await listed(''));
  const [processing, failed, completed] = rows;
  const common = { business_id: String(shop.businessId), currency: 'UGX', processor: 'sandbox' };
  expect(completed).toEqual(expect.objectContaining({
    ...common, status: 'COMPLETED', amount: '20000.50', fee: '350.01', pending_reason: '', failure_reason: '',
    narration: `'=HYPERLINK("http://x.example"), "pay" now`, account_number: '256772123456', bank_code: '',
  }));
  // the payee's name is the merchant's free text too: inert
  expect(failed).toEqual(expect.objectContaining({ ...common, status: 'FAILED', amount: '15000', account_name: "'@Nakato Grace", failure_reason: expect.stringMatching(/.+/) }));
  expect(processing).toEqual(expect.objectContaining({ ...common, status: 'PROCESSING', payment_method: 'BANK', bank_code: '010', amount: '1000', fee: '65' }));
});

it("applies the list's filters as the list does", async () => {
  const since = `${new Date(Date.now() - 3_600_000).toISOString().slice(0, 19)}Z`;
  const cases: [string, string[]][] = [
    ['status=FAILED', [made.failed]],
    ['status=COMPLETED', [made.completed]],
    [`merchant_reference=${(await listed(`status=PROCESSING`))[0].merchant_reference}`, [made.processing]],
    ['currency=KES', []],
    ['from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z', []],
    [`from=${since}&status=PROCESSING`, [made.processing]],
  ];
  for (const [query, expected] of cases) {
    const rows = await shopExport(query);
    expect({ query, refs: refs(rows) }).toEqual({ query, refs: expected });
    expect({ query, records: rows.map(asRecord) }).toEqual({ query, records: await listed(query) });
  }
});

it('joins its batches by keyset: the same rows with a batch of one', async () => {
  const chunks: string[] = [];
  const sink = { write: async (chunk: string) => void chunks.push(chunk) };
  expect(await svc.services.reports.disbursementExports.writeCsv({ business_id: shop.businessId }, sink, 1)).toBe(3);
  expect(chunks).toHaveLength(1 + 3);
  expect(refs(parseCsv(chunks.join('')))).toEqual(refs(await shopExport()));
});

it('needs the Secret-Key, and gives a merchant only its own', async () => {
  const missing = await shop.client.get('/v1/exports/disbursements');
  expect(missing.status).toBe(401);
  expect(missing.body.code).toBe('UNAUTHORIZED');
  const wrong = await shop.client.get('/v1/exports/disbursements', secret(other));
  expect(wrong.status).toBe(401);
  expect(refs(await exported(other.client, '/v1/exports/disbursements', secret(other).headers))).toEqual([made.theirs]);
  expect(await exported(other.client, `/v1/exports/disbursements?merchant_reference=${(await listed('status=FAILED'))[0].merchant_reference}`, secret(other).headers)).toEqual([]);
  expect((await svc.anon.get('/v1/exports/disbursements')).status).toBe(401);
});

it('lets operators export every business or one, and confines a merchant user to its own', async () => {
  const all = refs(await exported(svc.admin, '/v1/admin/exports/disbursements'));
  for (const r of Object.values(made)) expect(all).toContain(r);
  const theirs = await exported(svc.admin, `/v1/admin/exports/disbursements?business_id=${other.businessId}`);
  expect(refs(theirs)).toEqual([made.theirs]);
  expect(theirs[0]).toEqual(expect.objectContaining({ business_id: String(other.businessId), amount: '3000', status: 'COMPLETED' }));
  const failed = await exported(svc.admin, `/v1/admin/exports/disbursements?business_id=${shop.businessId}&status=FAILED`);
  expect(failed.map(asRecord)).toEqual(await listed('status=FAILED'));
  const unknown = await svc.admin.get('/v1/admin/exports/disbursements?business_id=2147483647');
  expect(unknown.status).toBe(404);
  expect(unknown.body.code).toBe('NOT_FOUND');

  const session = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: other.businessId }));
  const own = await session.get('/v1/admin/exports/disbursements');
  expect(own.status).toBe(200);
  expect(refs(parseCsv(own.text))).toEqual([made.theirs]);
  const denied = await session.get(`/v1/admin/exports/disbursements?business_id=${shop.businessId}`);
  expect(denied.status).toBe(404);
  expect(denied.body.code).toBe('NOT_FOUND');
  expect((await svc.anon.get('/v1/admin/exports/disbursements')).status).toBe(401);
});

it('refuses malformed filters with 400 naming the field and changes nothing', async () => {
  const count = () => svc.database.db.one<{ disbursements: number; journals: number; audit: number }>(
    `SELECT (SELECT count(*)::int FROM disbursements) AS disbursements, (SELECT count(*)::int FROM journals) AS journals,
       (SELECT count(*)::int FROM audit_log) AS audit`,
  );
  const before = await count();
  for (const [client, path, q, field] of [
    [shop.client, '/v1/exports/disbursements', 'status=DONE', 'status'],
    [shop.client, '/v1/exports/disbursements', 'from=2026-02-30T00:00:00Z', 'from'],
    [shop.client, '/v1/exports/disbursements', 'currency=ugx', 'currency'],
    [shop.client, '/v1/exports/disbursements', 'per_page=10', 'per_page'],
    [svc.admin, '/v1/admin/exports/disbursements', 'business_id=abc', 'business_id'],
  ] as const) {
    const res = await client.get(`${path}?${q}`, secret(shop));
    expect(`${q} ${res.status}`).toBe(`${q} 400`);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data.map((e: { field: string }) => e.field)).toContain(field);
  }
  expect(await count()).toEqual(before);
});
