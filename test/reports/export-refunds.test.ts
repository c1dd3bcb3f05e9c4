// Proves the refunds export (exportRefunds, exportAdminRefunds) over refunds made through the public API on the simulator: a full, a partial and a failed refund stream as CSV that parses back, newest first as the list has them, with exact amounts, wallet debits, states, reasons and completion times; free text stays inert in a spreadsheet; the list's filters apply; batches join without a row twice or lost; a merchant gets only its own refunds, a merchant user its own business's; bad filters are refused and change nothing.
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { createUser, signedIn } from '../helpers/users';
import { REFUNDS_CSV_HEADER } from '../../src/reports/exports';
import { headerOf, minorOf, parseCsv } from './csv';

let svc: TestService;
let shop: MerchantSetup;
let other: MerchantSetup;
/** the shop's collections: one refunded in part (and a refund of it failed), one refunded in full */
let partly: { reference: string; merchantReference: string };
let fully: { reference: string; merchantReference: string };
/** the shop's refunds by what became of them, and the other business's one */
const refunds: Record<'partial' | 'failed' | 'full' | 'theirs', { gateway_reference: string; merchant_reference: string }> = {} as never;

/** A COMPLETED UGX mobile money collection of `amount`, through the sandbox tools. */
async function completed(m: MerchantSetup, amount: number) {
  const merchantReference = ref();
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount, merchant_reference: merchantReference }));
  expect(created.status).toBe(200);
  const reference = created.body.data.gateway_reference as string;
  expect((await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return { reference, merchantReference };
}

/** A refund through the merchant API, waited for until it reaches `status`. */
async function refund(m: MerchantSetup, collection: string, body: Record<string, unknown>, status: string) {
  const res = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD'), ...body });
  expect(res.status).toBe(200);
  const reference = res.body.data.gateway_reference as string;
  return eventually(async () => {
    const r = await m.client.get(`/v1/refunds/${reference}`);
    return r.body.data.transaction_status === status ? r.body.data : undefined;
  }, 15_000, `refund ${reference} ${status}`);
}

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  shop = await setupMerchant(svc);
  other = await setupMerchant(svc);
  partly = await completed(shop, 50000);
  fully = await completed(shop, 30000.5);
  refunds.partial = await refund(shop, partly.reference, { amount: 20000, reason: '=HYPERLINK("http://x.example"), "gift" wrapped' }, 'COMPLETED');
  refunds.failed = await refund(shop, partly.reference, { amount: 200.13, reason: 'Wrong size' }, 'FAILED');
  refunds.full = await refund(shop, fully.reference, {}, 'COMPLETED');
  const theirs = await completed(other, 1000);
  refunds.theirs = await refund(other, theirs.reference, {}, 'COMPLETED');
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

async function exported(client: Client, url: string) {
  const res = await client.get(url, { headers: { accept: 'text/csv' } });
  expect(`${url} ${res.status}`).toBe(`${url} 200`);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="refunds-\d{4}-\d\d-\d\d\.csv"$/);
  expect(headerOf(res.text)).toEqual(REFUNDS_CSV_HEADER);
  // CRLF after every record, and no other line break outside a quoted field here
  expect(res.text.endsWith('\r\n')).toBe(true);
  expect(res.text.replace(/\r\n/g, '').includes('\n')).toBe(false);
  return parseCsv(res.text);
}

const refs = (rows: Record<string, string>[]) => rows.map((r) => r.gateway_reference);

/** What the refund list answers for the same filters, newest first. */
async function listed(client: Client, query: string): Promise<string[]> {
  const res = await client.get(`/v1/refunds?per_page=100${query ? `&${query}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.data.map((r: { gateway_reference: string }) => r.gateway_reference);
}

const UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

it('gives each refund of the merchant once, newest first, with exact amounts, states and completion times', async () => {
  const rows = await exported(shop.client, '/v1/exports/refunds');
  expect(refs(rows)).toEqual([refunds.full.gateway_reference, refunds.failed.gateway_reference, refunds.partial.gateway_reference]);
  expect(refs(rows)).toEqual(await listed(shop.client, ''));
  const [full, failed, partial] = rows;
  const common = { business_id: String(shop.businessId), currency: 'UGX', wallet_currency: 'UGX', processor: 'sandbox', pending_reason: '' };
  expect(partial).toEqual({
    ...common,
    created_at_utc: expect.stringMatching(UTC), updated_at_utc: expect.stringMatching(UTC), completed_at_utc: expect.stringMatching(UTC),
    gateway_reference: refunds.partial.gateway_reference, merchant_reference: refunds.partial.merchant_reference,
    collection_gateway_reference: partly.reference, collection_merchant_reference: partly.merchantReference,
    status: 'COMPLETED', failure_reason: '', reason: `'=HYPERLINK("http://x.example"), "gift" wrapped`,
    amount: '20000', wallet_debit: '20000',
  });
  expect(failed).toEqual(expect.objectContaining({
    ...common, collection_gateway_reference: partly.reference, status: 'FAILED', completed_at_utc: '',
    failure_reason: 'The simulated processor declined the refund', reason: 'Wrong size', amount: '200.13', wallet_debit: '200.13',
  }));
  expect(full).toEqual(expect.objectContaining({
    ...common, collection_gateway_reference: fully.reference, collection_merchant_reference: fully.merchantReference,
    status: 'COMPLETED', reason: '', amount: '30000.50', wallet_debit: '30000.50', completed_at_utc: expect.stringMatching(UTC),
  }));
  // the completion time is the refund_out journal's, no earlier than the refund
  const out = await svc.database.db.one<{ at: Date }>(
    "SELECT j.created_at AS at FROM journals j JOIN refunds r ON r.id = j.refund_id WHERE r.gateway_reference = $1 AND j.kind = 'refund_out'",
    [refunds.full.gateway_reference],
  );
  expect(full.completed_at_utc).toBe(out.at.toISOString().slice(0, 19) + 'Z');
  expect(full.completed_at_utc >= full.created_at_utc).toBe(true);
  // the completed refunds are what left the wallet: 50000 + 30000.50 paid, 20000 + 30000.50 out
  const debited = rows.filter((r) => r.status === 'COMPLETED').reduce((sum, r) => sum + minorOf(r.wallet_debit, r.wallet_currency), 0n);
  const balance = await shop.client.get('/v1/data/wallets/UGX/balance');
  expect(BigInt(Math.round(balance.body.data.balance * 100))).toBe(5000000n + 3000050n - debited);
});

it('applies the refund list filters as the list does', async () => {
  const cases: [string, string[]][] = [
    ['status=FAILED', [refunds.failed.gateway_reference]],
    ['status=COMPLETED', [refunds.full.gateway_reference, refunds.partial.gateway_reference]],
    [`collection_gateway_reference=${partly.reference}`, [refunds.failed.gateway_reference, refunds.partial.gateway_reference]],
    [`merchant_reference=${refunds.full.merchant_reference}`, [refunds.full.gateway_reference]],
    ['currency=KES', []],
    ['from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z', []],
    [`from=${new Date(Date.now() - 3_600_000).toISOString().slice(0, 19)}Z&status=COMPLETED&collection_gateway_reference=${fully.reference}`, [refunds.full.gateway_reference]],
  ];
  for (const [query, expected] of cases) {
    const rows = await exported(shop.client, `/v1/exports/refunds?${query}`);
    expect({ query, refs: refs(rows) }).toEqual({ query, refs: expected });
    expect({ query, refs: refs(rows) }).toEqual({ query, refs: await listed(shop.client, query) });
  }
});

it('joins its batches by keyset: the same rows with a batch of one', async () => {
  const chunks: string[] = [];
  const sink = { write: async (chunk: string) => void chunks.push(chunk) };
  const written = await svc.services.reports.refundExports.writeCsv({ business_id: shop.businessId }, sink, 1);
  expect(written).toBe(3);
  expect(chunks).toHaveLength(1 + 3);
  expect(refs(parseCsv(chunks.join('')))).toEqual(refs(await exported(shop.client, '/v1/exports/refunds')));
});

it('lets operators export every business or one, and confines a merchant user to its own', async () => {
  const all = refs(await exported(svc.admin, '/v1/admin/exports/refunds'));
  for (const r of Object.values(refunds)) expect(all).toContain(r.gateway_reference);
  const theirs = await exported(svc.admin, `/v1/admin/exports/refunds?business_id=${other.businessId}`);
  expect(refs(theirs)).toEqual([refunds.theirs.gateway_reference]);
  expect(theirs[0]).toEqual(expect.objectContaining({ business_id: String(other.businessId), amount: '1000', status: 'COMPLETED' }));
  const failed = await exported(svc.admin, `/v1/admin/exports/refunds?business_id=${shop.businessId}&status=FAILED`);
  expect(refs(failed)).toEqual([refunds.failed.gateway_reference]);

  // the other merchant's API key never sees the shop's refunds
  expect(refs(await exported(other.client, '/v1/exports/refunds'))).toEqual([refunds.theirs.gateway_reference]);
  expect(await exported(other.client, `/v1/exports/refunds?collection_gateway_reference=${partly.reference}`)).toEqual([]);

  const user = await createUser(svc, { role: 'merchant_viewer', business_id: other.businessId });
  const session = await signedIn(svc, user);
  const own = await session.get('/v1/admin/exports/refunds');
  expect(own.status).toBe(200);
  expect(refs(parseCsv(own.text))).toEqual([refunds.theirs.gateway_reference]);
  const denied = await session.get(`/v1/admin/exports/refunds?business_id=${shop.businessId}`);
  expect(denied.status).toBe(404);
  expect(denied.body.code).toBe('NOT_FOUND');
  expect((await svc.anon.get('/v1/exports/refunds')).status).toBe(401);
  expect((await svc.anon.get('/v1/admin/exports/refunds')).status).toBe(401);
});

it('refuses malformed filters with 400 naming the field and changes nothing', async () => {
  const count = () => svc.database.db.one<{ refunds: number; journals: number; audit: number }>(
    `SELECT (SELECT count(*)::int FROM refunds) AS refunds, (SELECT count(*)::int FROM journals) AS journals,
       (SELECT count(*)::int FROM audit_log) AS audit`,
  );
  const before = await count();
  for (const [client, path, q, field] of [
    [shop.client, '/v1/exports/refunds', 'status=DONE', 'status'],
    [shop.client, '/v1/exports/refunds', 'from=2026-02-30T00:00:00Z', 'from'],
    [shop.client, '/v1/exports/refunds', 'currency=ugx', 'currency'],
    [shop.client, '/v1/exports/refunds', 'collection_gateway_reference=PC-1', 'collection_gateway_reference'],
    [shop.client, '/v1/exports/refunds', 'per_page=10', 'per_page'],
    [svc.admin, '/v1/admin/exports/refunds', 'business_id=abc', 'business_id'],
  ] as const) {
    const res = await client.get(`${path}?${q}`);
    expect(`${q} ${res.status}`).toBe(`${q} 400`);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data.map((e: { field: string }) => e.field)).toContain(field);
  }
  expect(await count()).toEqual(before);
});
