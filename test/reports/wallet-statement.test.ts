// Proves the wallet statement (getWalletStatement, getAdminWalletStatement): on a ledger with every kind of posting (credits to available and pending, fees, reserve holds, reserve releases, card settlements) it reconciles exactly, opening + lines = closing, per account kind and in total, in JSON pages and in CSV; the credit of a converted collection shows what the customer paid, the reference rate, the markup (exactly applied - reference), the applied rate, source and as-of, as its record does, and every other line shows none; a refund's journal shows with its own reference; a merchant reads only its own wallets; bad periods are refused and change nothing.
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { complete, createBusiness, insertPending, ledgerCounts, merchantClient, setRate } from '../helpers/money-fixtures';
import type { BusinessFixture } from '../helpers/money-fixtures';
import { createUser, signedIn } from '../helpers/users';
import { apiTime } from '../../src/domain/time';
import { headerOf, minorOf, parseCsv, rateUnits } from './csv';

const DAY = 86_400_000;
let svc: TestService;
let biz: BusinessFixture;
let other: BusinessFixture;
let merchant: Client;
let t0: Date;
const refs: string[] = [];
/** each collection's own merchant reference, beside its gateway reference in refs */
const mine: string[] = [];

const iso = (d: Date) => d.toISOString().slice(0, 19) + 'Z';
const minor = (n: number) => BigInt(Math.round(n * 100));
const KINDS = ['available', 'pending', 'reserved', 'other', 'total'] as const;
type Buckets = Record<(typeof KINDS)[number], number>;
/** A line that credits no converted collection: no payment amount, no conversion. */
const NO_FX = { request_amount: null, request_currency: null, fx_rate: null, fx_reference_rate: null, fx_markup: null, fx_source: null, fx_as_of: null };
const FX_COLUMNS = ['request_amount', 'request_currency', 'fx_rate', 'fx_reference_rate', 'fx_markup', 'fx_source', 'fx_as_of_utc'];

beforeAll(async () => {
  svc = await startTestService({ workers: false });
  const s = svc.services;
  biz = await createBusiness(s.db, {
    defaultCurrency: 'UGX', wallets: ['USD'], reservePercent: '10', reserveMonths: 1, cardSettlementDays: 2,
    fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }, { method: 'CARD', percent: '2.5', fixedMinor: 100n }],
  });
  other = await createBusiness(s.db, { defaultCurrency: 'KES' });
  t0 = new Date(Date.now() - 60_000);
  for (const [method, amountMinor] of [['MOBILE_MONEY', 10000n], ['CARD', 25050n], ['MOBILE_MONEY', 30000n], ['CARD', 7777n]] as const) {
    const row = await insertPending(s, biz.businessId, { amountMinor, method });
    await complete(s, row.id);
    refs.push(row.gateway_reference);
    mine.push(row.merchant_reference);
  }
  // card settlement after 2 days, then the reserve a month on: every kind of posting there is today
  expect(await s.ledger.releaseDue(new Date(Date.now() + 3 * DAY))).toBe(2);
  expect(await s.ledger.releaseDue(new Date(Date.now() + 40 * DAY))).toBe(4);
  merchant = await merchantClient(svc, biz.businessId);
});
afterAll(async () => {
  await svc?.close();
});

const merchantUrl = (currency: string, q: string) => `/v1/data/wallets/${currency}/statement?${q}`;
const adminUrl = (id: number, currency: string, q: string) => `/v1/admin/businesses/${id}/wallets/${currency}/statement?${q}`;

/** The wallet's balance per kind at `at`, summed from the postings themselves (not the running balances). */
async function sumBefore(at: Date): Promise<Buckets> {
  const rows = await svc.services.db.any<{ kind: string; sum: bigint }>(
    `SELECT a.kind, SUM(p.amount_minor)::bigint AS sum FROM postings p JOIN ledger_accounts a ON a.id = p.account_id
     WHERE a.wallet_id = $1 AND p.created_at < $2 GROUP BY a.kind`,
    [biz.walletIds.UGX, at],
  );
  const b: Buckets = { available: 0, pending: 0, reserved: 0, other: 0, total: 0 };
  for (const r of rows) {
    b[r.kind as 'available'] += Number(r.sum) / 100;
    b.total += Number(r.sum) / 100;
  }
  for (const k of KINDS) b[k] = Math.round(b[k] * 100) / 100;
  return b;
}

/** opening + every line = closing, in exact minor units, per kind and in total. */
function expectReconciles(opening: Buckets, lines: { change: Buckets; balance_after: number }[], closing: Buckets) {
  for (const k of KINDS) {
    const sum = lines.reduce((acc, l) => acc + minor(l.change[k]), minor(opening[k]));
    expect(`${k} ${sum}`).toBe(`${k} ${minor(closing[k])}`);
  }
  let balance = minor(opening.total);
  for (const l of lines) {
    balance += minor(l.change.total);
    expect(minor(l.balance_after)).toBe(balance);
  }
}

async function allLines(client: Client, url: (q: string) => string, from: Date, to: Date, perPage: number) {
  const lines: any[] = [];
  let cursor: string | null = null;
  let first: any = null;
  do {
    const res: any = await client.get(url(`from=${iso(from)}&to=${iso(to)}&per_page=${perPage}${cursor ? `&cursor=${cursor}` : ''}`));
    expect(res.status).toBe(200);
    first ??= res.body;
    expect(res.body.data.opening_balance).toEqual(first.data.opening_balance);
    expect(res.body.data.closing_balance).toEqual(first.data.closing_balance);
    lines.push(...res.body.data.lines);
    cursor = res.body.paging.next_cursor;
  } while (cursor);
  return { opening: first.data.opening_balance, closing: first.data.closing_balance, total: first.paging.total, lines };
}

it('lists every movement of the whole history and closes on the wallet balance', async () => {
  const from = new Date(t0.getTime() - 3_600_000);
  const to = new Date(Date.now() + 50 * DAY);
  const st = await allLines(merchant, (q) => merchantUrl('UGX', q), from, to, 100);
  expect(st.opening).toEqual({ available: 0, pending: 0, reserved: 0, other: 0, total: 0 });
  // 4 credits, 2 card settlements, 4 reserve releases
  expect(st.lines.map((l: any) => l.kind)).toEqual([
    'collection_credit', 'collection_credit', 'collection_credit', 'collection_credit', 'settlement', 'settlement',
    'reserve_release', 'reserve_release', 'reserve_release', 'reserve_release',
  ]);
  expect(st.total).toBe(10);
  expectReconciles(st.opening, st.lines, st.closing);
  const balance = await merchant.get('/v1/data/wallets/UGX/balance');
  expect(st.closing.total).toBe(balance.body.data.balance);
  expect(st.closing.available).toBe(balance.body.data.available_balance);
  expect(st.closing.pending).toBe(0);
  expect(st.closing.reserved).toBe(0);
  // a mobile money credit of 100.00: fee 3.00, reserve 9.70, available 87.30
  expect(st.lines[0]).toEqual({
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    journal_id: expect.any(Number),
    kind: 'collection_credit',
    reference_type: 'collection',
    reference: refs[0],
    collection_reference: refs[0],
    merchant_reference: mine[0],
    change: { available: 87.3, pending: 0, reserved: 9.7, other: 0, total: 97 },
    fee: 3,
    balance_after: 97,
    ...NO_FX,
  });
  // a card credit goes to pending until it settles; the settlement moves it without changing the total
  expect(st.lines[1].change.pending).toBeGreaterThan(0);
  expect(st.lines[1].change.available).toBe(0);
  const settlement = st.lines.find((l: any) => l.kind === 'settlement' && l.reference === refs[1]);
  expect(settlement.change).toEqual({ available: st.lines[1].change.pending, pending: -st.lines[1].change.pending, reserved: 0, other: 0, total: 0 });
  expect(settlement.fee).toBe(0);
});

it('reconciles exactly over a period that starts and ends inside the history', async () => {
  const from = new Date(Date.now() + 1 * DAY);
  const to = new Date(Date.now() + 10 * DAY);
  const st = await allLines(merchant, (q) => merchantUrl('UGX', q), from, to, 100);
  expect(st.lines.map((l: any) => l.kind)).toEqual(['settlement', 'settlement']);
  expect(st.opening).toEqual(await sumBefore(from));
  expect(st.closing).toEqual(await sumBefore(to));
  expect(st.opening.pending).toBeGreaterThan(0);
  expect(st.closing.pending).toBe(0);
  expectReconciles(st.opening, st.lines, st.closing);
});

it('pages with a cursor through the same lines as one page, each line once', async () => {
  const from = new Date(t0.getTime() - 3_600_000);
  const to = new Date(Date.now() + 50 * DAY);
  const whole = await allLines(merchant, (q) => merchantUrl('UGX', q), from, to, 100);
  const paged = await allLines(svc.admin, (q) => adminUrl(biz.businessId, 'UGX', q), from, to, 3);
  expect(paged.lines).toEqual(whole.lines);
  expect(new Set(paged.lines.map((l: any) => l.journal_id)).size).toBe(10);
  expectReconciles(paged.opening, paged.lines, paged.closing);
});

it('answers the whole statement as CSV that parses back and reconciles', async () => {
  const from = new Date(Date.now() + 1 * DAY);
  const to = new Date(Date.now() + 50 * DAY);
  const res = await merchant.get(merchantUrl('UGX', `from=${iso(from)}&to=${iso(to)}&format=csv`), { headers: { accept: 'text/csv' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-UGX-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv"$/);
  expect(headerOf(res.text)).toEqual([
    'time_utc', 'journal_id', 'kind', 'reference_type', 'reference', 'collection_reference', 'merchant_reference',
    'available', 'pending', 'reserved', 'other', 'net', 'fee', 'balance_after', 'currency', ...FX_COLUMNS,
  ]);
  const records = parseCsv(res.text);
  expect(records.map((r) => r.kind)).toEqual(['opening_balance', 'settlement', 'settlement', 'reserve_release', 'reserve_release', 'reserve_release', 'reserve_release', 'closing_balance']);
  const [opening, closing] = [records[0], records[records.length - 1]];
  expect(opening.time_utc).toBe(iso(from));
  expect(closing.time_utc).toBe(iso(to));
  for (const k of ['available', 'pending', 'reserved', 'other'] as const) {
    const sum = records.slice(1, -1).reduce((acc, r) => acc + minorOf(r[k], 'UGX'), minorOf(opening[k], 'UGX'));
    expect(`${k} ${sum}`).toBe(`${k} ${minorOf(closing[k], 'UGX')}`);
  }
  const net = records.slice(1, -1).reduce((acc, r) => acc + minorOf(r.net, 'UGX'), minorOf(opening.balance_after, 'UGX'));
  expect(net).toBe(minorOf(closing.balance_after, 'UGX'));
  expect(records.every((r) => r.currency === 'UGX')).toBe(true);
  expect(records.every((r) => FX_COLUMNS.every((c) => r[c] === ''))).toBe(true);
  // the same figures as the JSON statement
  const json = await allLines(merchant, (q) => merchantUrl('UGX', q), from, to, 100);
  expect(minorOf(closing.balance_after, 'UGX')).toBe(minor(json.closing.total));
  expect(records.slice(1, -1).map((r) => r.reference)).toEqual(json.lines.map((l: any) => l.reference));
  // a reserve release or a settlement names the merchant's own reference of its collection too
  expect(records.slice(1, -1).map((r) => r.merchant_reference)).toEqual(json.lines.map((l: any) => mine[refs.indexOf(l.collection_reference)]));
  expect(records[0].merchant_reference).toBe('');
});

it('shows an empty wallet as equal opening and closing balances with no line', async () => {
  const res = await merchant.get(merchantUrl('USD', `from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z`));
  expect(res.status).toBe(200);
  expect(res.body.data.lines).toEqual([]);
  expect(res.body.data.opening_balance).toEqual(res.body.data.closing_balance);
  expect(res.body.paging).toEqual({ per_page: 10, next_cursor: null, total: 0 });
  const csv = await merchant.get(merchantUrl('USD', `from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z&format=csv`));
  expect(parseCsv(csv.text).map((r) => r.kind)).toEqual(['opening_balance', 'closing_balance']);
});

it('shows a refund journal with its own reference, beside the collection it refunds', async () => {
  // how refunds will post (their own journal kind and reference), planted here by SQL
  const s = svc.services;
  await s.db.none('ALTER TABLE journals ADD COLUMN IF NOT EXISTS reference TEXT');
  const at = new Date(Date.now() + 45 * DAY);
  const { id: collectionId } = await s.db.one<{ id: bigint }>('SELECT id FROM collections WHERE gateway_reference = $1', [refs[0]]);
  const { id: journalId } = await s.db.one<{ id: bigint }>(
    `INSERT INTO journals (collection_id, kind, created_at, reference) VALUES ($1, 'refund', $2, 'RF7Q2M3K8ZT') RETURNING id`,
    [collectionId, at],
  );
  const accounts = await s.db.any<{ id: number; kind: string }>(
    `SELECT id, kind FROM ledger_accounts WHERE (wallet_id = $1 AND kind = 'available') OR (wallet_id IS NULL AND currency = 'UGX' AND kind = 'processor_clearing')`,
    [biz.walletIds.UGX],
  );
  for (const a of accounts) {
    await s.db.none('INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      journalId, a.id, a.kind === 'available' ? -2500n : 2500n, 'UGX', 'refund', at,
    ]);
  }
  const from = new Date(Date.now() + 44 * DAY);
  const st = await allLines(merchant, (q) => merchantUrl('UGX', q), from, new Date(Date.now() + 46 * DAY), 10);
  expect(st.lines).toEqual([
    expect.objectContaining({ kind: 'refund', reference_type: 'refund', reference: 'RF7Q2M3K8ZT', collection_reference: refs[0], merchant_reference: null, change: { available: -25, pending: 0, reserved: 0, other: 0, total: -25 }, fee: 0 }),
  ]);
  expectReconciles(st.opening, st.lines, st.closing);
});

it('lets a merchant read only its own wallets', async () => {
  const theirs = await merchantClient(svc, other.businessId);
  const res = await theirs.get(merchantUrl('UGX', 'from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z'));
  expect(res.status).toBe(404);
  expect(res.body.code).toBe('NOT_FOUND');
  const user = await createUser(svc, { role: 'merchant_viewer', business_id: other.businessId });
  const session = await signedIn(svc, user);
  const denied = await session.get(adminUrl(biz.businessId, 'UGX', 'from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z'));
  expect(denied.status).toBe(404);
  const own = await session.get(adminUrl(other.businessId, 'KES', 'from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z'));
  expect(own.status).toBe(200);
  const anonymous = await svc.anon.get(merchantUrl('UGX', 'from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z'));
  expect(anonymous.status).toBe(401);
});

it('refuses bad periods and parameters with 400 naming the field, and changes nothing', async () => {
  const before = await ledgerCounts(svc.services.db);
  const cases: [string, string][] = [
    ['to=2025-02-01T00:00:00Z', 'from'],
    ['from=2025-01-01T00:00:00Z', 'to'],
    ['from=2025-13-01T00:00:00Z&to=2025-02-01T00:00:00Z', 'from'],
    ['from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z', 'to'],
    ['from=2025-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', 'to'],
    ['from=2024-01-01T00:00:00Z&to=2025-02-01T00:00:00Z', 'to'],
    ['from=2025-01-01&to=2025-02-01', 'from'],
    ['from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z&format=xlsx', 'format'],
    ['from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z&cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z&per_page=101', 'per_page'],
  ];
  for (const [q, field] of cases) {
    const res = await merchant.get(merchantUrl('UGX', q));
    expect(`${q} ${res.status}`).toBe(`${q} 400`);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data.map((e: { field: string }) => e.field)).toContain(field);
  }
  const admin = await svc.admin.get(adminUrl(biz.businessId, 'UGX', 'from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z&format=csv'));
  expect(admin.status).toBe(400);
  expect(admin.body.data).toEqual([expect.objectContaining({ field: 'to' })]);
  expect(await ledgerCounts(svc.services.db)).toEqual(before);
  const unknown = await svc.admin.get(adminUrl(999999, 'UGX', 'from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z'));
  expect(unknown.status).toBe(404);
});

it('shows on the credit of a converted collection what the customer paid and the FX markup, as its record does, and on no other line', async () => {
  const s = svc.services;
  const marked = await createBusiness(s.db, {
    defaultCurrency: 'UGX', fxMarkupPercent: '2.5', reservePercent: '10', reserveMonths: 1, fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }],
  });
  await setRate(s.db, 'USD', 'UGX', '3700');
  const from = new Date(Date.now() - 3_600_000);
  const converted = await insertPending(s, marked.businessId, { currency: 'USD', amountMinor: 1000n });
  await complete(s, converted.id);
  const plain = await insertPending(s, marked.businessId, { amountMinor: 500000n });
  await complete(s, plain.id);
  // the reserve released a month on: lines of the converted collection that do not credit it
  expect(await s.ledger.releaseDue(new Date(Date.now() + 40 * DAY))).toBe(2);
  const to = new Date(Date.now() + 50 * DAY);
  const { as_of: asOf } = await s.db.one<{ as_of: Date }>(`SELECT as_of FROM fx_rates WHERE base = 'USD' AND quote = 'UGX'`);
  const client = await merchantClient(svc, marked.businessId);
  const st = await allLines(client, (q) => merchantUrl('UGX', q), from, to, 100);
  expect(st.lines.map((l: any) => l.kind)).toEqual(['collection_credit', 'collection_credit', 'reserve_release', 'reserve_release']);
  expectReconciles(st.opening, st.lines, st.closing);
  const [credit, ...others] = st.lines;
  // 10 USD x 3700 x 0.975 = 36075 UGX; fee 3 %
  expect(credit).toEqual(expect.objectContaining({
    reference: converted.gateway_reference, fee: 1082.25, change: expect.objectContaining({ total: 34992.75 }),
    request_amount: 10, request_currency: 'USD', fx_rate: 3607.5, fx_reference_rate: 3700, fx_markup: -92.5, fx_source: 'operator', fx_as_of: apiTime(asOf),
  }));
  const record = (await client.get(`/v1/collections/${converted.gateway_reference}`)).body.data;
  for (const k of ['request_amount', 'request_currency', 'fx_rate', 'fx_reference_rate', 'fx_markup', 'fx_source', 'fx_as_of'] as const) expect(`${k} ${credit[k]}`).toBe(`${k} ${record[k]}`);
  // the plain credit, and a release of each collection's reserve
  expect(others.map((l: any) => l.collection_reference).sort()).toEqual([converted.gateway_reference, plain.gateway_reference, plain.gateway_reference].sort());
  for (const l of others) expect(l).toEqual(expect.objectContaining(NO_FX));
  // the operator reads the same lines
  expect((await allLines(svc.admin, (q) => adminUrl(marked.businessId, 'UGX', q), from, to, 3)).lines).toEqual(st.lines);

  const res = await client.get(merchantUrl('UGX', `from=${iso(from)}&to=${iso(to)}&format=csv`), { headers: { accept: 'text/csv' } });
  expect(res.status).toBe(200);
  const records = parseCsv(res.text);
  expect(records.map((r) => r.kind)).toEqual(['opening_balance', 'collection_credit', 'collection_credit', 'reserve_release', 'reserve_release', 'closing_balance']);
  const fxCells = (r: Record<string, string>) => FX_COLUMNS.map((c) => r[c]);
  expect(fxCells(records[1])).toEqual(['10.00', 'USD', '3607.500000000000', '3700.000000000000', '-92.500000000000', 'operator', apiTime(asOf)]);
  expect(rateUnits(records[1].fx_markup)).toBe(rateUnits(records[1].fx_rate) - rateUnits(records[1].fx_reference_rate));
  for (const r of [records[0], ...records.slice(2)]) expect(fxCells(r)).toEqual(['', '', '', '', '', '', '']);
});
