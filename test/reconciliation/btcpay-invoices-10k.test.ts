// Proves reconciliation with a BTCPay store's settled invoices at scale, through the pull and the operator
// API: 10,000 USD crypto payments of the crypto MID (a few made through the API against the fake BTCPay
// Server, the rest copies of one of them as its completion left it: test/helpers/bulk-payments.ts) over
// three UTC days, each an invoice the fake lists as Settled, with about 1% of each difference the invoice
// list can carry (an invoice's price over or under what we asked, an invoice the store was paid on that we
// never made, one of ours left out past the deadline). One pull reads each day whole, a page at a time, and
// finds every injected difference and no other; a second pull creates nothing; once every difference is
// resolved each day's total equals the ledger's to the minor unit but for what was acknowledged, and the
// ledger's drift check finds nothing.
import { bulkPayments } from '../helpers/bulk-payments';
import type { BulkPayment } from '../helpers/bulk-payments';
import { settledCryptoPayment, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { allItems, byState, counts, expectResolvedDaysEqualLedger } from '../helpers/reconciliation-scale';

const PAYMENTS = 10_000;
const BY_API = 3;
const DAY_S = 86_400;
let w: HostedWorld;
const invoices: string[] = [];
/** invoice id -> our payment's gateway_reference */
const gateway = new Map<string, string>();
let bulk: BulkPayment[] = [];
/** every 100th bulk payment of each kind: about 1% */
const every = (offset: number) => bulk.filter((_, k) => k % 100 === offset).map((p) => p.vendor_reference as string);
/** invoices the store was paid on that we never made: their prices in cents */
const EXTRAS = Array.from({ length: 100 }, (_, i) => 2_000 + i);
const extraIds = EXTRAS.map((_, i) => `NOTOURSx${String(i).padStart(4, '0')}`);

/** A USD 12.50 crypto payment BTCPay settles: our gateway_reference. */
const paid = async () => (await settledCryptoPayment(w)).gatewayReference;

beforeAll(async () => {
  // the processor's deadline as deployed (10 s), not the live tests' 1.5 s: a page not answered in time ends the
  // pull's run at that settlement, and a busy machine can stall a page past 1.5 s
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m', PROCESSOR_TIMEOUT_MS: '10000' });
  const made: string[] = [];
  for (let i = 0; i < BY_API; i++) made.push(await paid());
  const rows = await w.svc.services.db.any<{ vendor_reference: string; gateway_reference: string }>(
    'SELECT r.vendor_reference, c.gateway_reference FROM processor_requests r JOIN collections c ON c.id = r.collection_id WHERE c.gateway_reference = ANY($1)', [made]);
  expect(rows).toHaveLength(BY_API);
  // the API's invoices were made today, a day the pull does not read yet: moved to four days ago, a day it reads
  const fourDaysAgo = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S - 4 * DAY_S + 12 * 3600;
  for (const r of rows) {
    w.btcpay.invoice(r.vendor_reference)!.createdTime = fourDaysAgo;
    invoices.push(r.vendor_reference);
    gateway.set(r.vendor_reference, r.gateway_reference);
  }
  // the rest over the six to three and a half days before: all past the MID's deadline
  const now = Date.now();
  bulk = await bulkPayments(w.svc.services.db, { template: made[0], count: PAYMENTS - BY_API, tag: 'BT', from: new Date(now - 6 * 86_400_000), until: new Date(now - 3.5 * 86_400_000) });
  for (const p of bulk) {
    invoices.push(p.vendor_reference as string);
    gateway.set(p.vendor_reference as string, p.gateway_reference);
  }
}, 300_000);
afterAll(() => w?.close());

it('finds every injected difference among 10,000 settled invoices, and no other; a second pull creates nothing', async () => {
  expect(new Set(invoices).size).toBe(PAYMENTS);
  const [over, under, omitted] = [every(10), every(20), every(40)];
  const price = new Map([...over.map((r) => [r, 1300] as const), ...under.map((r) => [r, 1200] as const)]);
  const leftOut = new Set(omitted);
  w.btcpay.sawPaid(bulk.filter((p) => !leftOut.has(p.vendor_reference as string)).map((p) => ({
    id: p.vendor_reference as string, amountCents: price.get(p.vendor_reference as string) ?? 1250, currency: 'USD', orderId: p.reference, createdTime: Math.floor(p.created_at.getTime() / 1000),
  })));
  const firstDay = Math.floor(bulk[0].created_at.getTime() / 1000);
  w.btcpay.sawPaid(EXTRAS.map((cents, i) => ({ id: extraIds[i], amountCents: cents, currency: 'USD', createdTime: firstDay + i * 1800 })));

  await w.svc.services.reconciliation.settlements.pull();
  const items = await allItems(w.svc, w.mids.crypto);
  const differ = new Set([...over, ...under, ...omitted]);
  // an item of ours is known by our payment; an invoice we never made, by its id
  const ours = (ids: string[]) => ids.map((r) => gateway.get(r) as string).sort();
  expect(byState(items, (i) => i.gateway_reference ?? i.reference)).toEqual({
    matched: ours(invoices.filter((r) => !differ.has(r))),
    amount_over: ours(over),
    amount_under: ours(under),
    theirs_missing: ours(omitted),
    ours_missing: [...extraIds].sort(),
  });
  expect(items.filter((i) => i.state === 'amount_over').every((i) => i.theirs_amount === 13)).toBe(true);
  expect(items.filter((i) => i.state === 'amount_under').every((i) => i.theirs_amount === 12)).toBe(true);
  expect(new Set(items.map((i) => i.day)).size).toBeGreaterThanOrEqual(3);

  const before = await counts(w.svc.services.db);
  expect(before.items).toBe(PAYMENTS + EXTRAS.length);
  await w.svc.services.reconciliation.settlements.pull();
  expect(await counts(w.svc.services.db)).toEqual(before);
}, 300_000);

it('once resolved, each day of settled invoices equals the ledger to the minor unit but for what was acknowledged; the ledger has no drift', async () => {
  // what was acknowledged is exactly the invoices we never made less our payments left out
  const omitted = bulk.filter((_, k) => k % 100 === 40);
  await expectResolvedDaysEqualLedger(w.svc, w.mids.crypto, BigInt(EXTRAS.reduce((a, b) => a + b, 0)) - omitted.reduce((a, p) => a + p.amount_minor, 0n));
}, 300_000);
