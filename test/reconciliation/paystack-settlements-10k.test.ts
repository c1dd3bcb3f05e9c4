// Proves reconciliation with Paystack's settlements at scale, through the pull and the operator API: 10,000
// NGN card payments of the card MID (a few made through the API against the fake Paystack, the rest copies
// of one of them as its completion left it: test/helpers/bulk-payments.ts, and recorded at the fake as paid)
// over three UTC days, settled by the fake a settlement per day (as Paystack settles daily) whose
// transactions are read a page at a time, with about 1% of each difference a settlement can carry (an amount
// over, an amount under, a payment nobody asked for, a payment left out past the deadline). One pull takes
// every settlement in and finds every injected difference and no other; a second pull creates nothing; once
// every difference is resolved each day's total equals the ledger's to the minor unit but for what was
// acknowledged, and the ledger's drift check finds nothing.
import { encryptCard } from '../../scripts/encrypt-card';
import { NO_3DS_CARD } from '../fakes/paystack';
import { bulkPayments } from '../helpers/bulk-payments';
import type { BulkPayment } from '../helpers/bulk-payments';
import { requestPayment, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { eventually } from '../helpers/notify-fixtures';
import { allItems, byState, counts, expectResolvedDaysEqualLedger } from '../helpers/reconciliation-scale';

const PAYMENTS = 10_000;
const BY_API = 3;
let w: HostedWorld;
/** Paystack's references of our payments, and each one's gateway_reference */
const references: string[] = [];
const gateway = new Map<string, string>();
let bulk: BulkPayment[] = [];
/** every 100th bulk payment of each kind: about 1% */
const every = (offset: number) => bulk.filter((_, k) => k % 100 === offset).map((p) => p.vendor_reference as string);
/** payments a settlement lists that nobody asked Paystack for: their amounts in kobo */
const EXTRAS = Array.from({ length: 100 }, (_, i) => ({ reference: `T_NOT_OURS_${String(i).padStart(4, '0')}`, amount: 500_000 + i * 100 }));

/** A NGN 25,000 card payment Paystack completes at once: its gateway_reference. */
async function paid(): Promise<string> {
  const key = (await w.client.get('/v1/public-key')).body.data.public_key;
  const encrypted = encryptCard(key, {
    full_name: 'Chidi Eze', card_number: NO_3DS_CARD, expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 2), cvv: '408',
    billing_address: '3 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
  });
  const p = await requestPayment(w, 'CARD', { encrypted_card: encrypted });
  await eventually(async () => (await w.client.get(`/v1/collections/${p.gateway_reference}`)).body.data.transaction_status === 'COMPLETED', 15_000, 'paid');
  return p.gateway_reference;
}

beforeAll(async () => {
  // the processor's deadline as deployed (10 s), not the live tests' 1.5 s: a page not answered in time ends the
  // pull's run at that settlement, and a busy machine can stall a page past 1.5 s
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m', PROCESSOR_TIMEOUT_MS: '10000' });
  const made: string[] = [];
  for (let i = 0; i < BY_API; i++) made.push(await paid());
  const rows = await w.svc.services.db.any<{ vendor_reference: string; gateway_reference: string }>(
    'SELECT r.vendor_reference, c.gateway_reference FROM processor_requests r JOIN collections c ON c.id = r.collection_id WHERE c.gateway_reference = ANY($1)', [made]);
  expect(rows).toHaveLength(BY_API);
  for (const r of rows) {
    if (!w.paystack.transaction(r.vendor_reference)) throw new Error(`no transaction ${r.vendor_reference} at the fake`);
    references.push(r.vendor_reference);
    gateway.set(r.vendor_reference, r.gateway_reference);
  }
  // the rest over the six to three and a half days before: all past the MID's deadline
  const now = Date.now();
  bulk = await bulkPayments(w.svc.services.db, { template: made[0], count: PAYMENTS - BY_API, tag: 'PS', from: new Date(now - 6 * 86_400_000), until: new Date(now - 3.5 * 86_400_000) });
  for (const p of bulk) {
    references.push(p.vendor_reference as string);
    gateway.set(p.vendor_reference as string, p.gateway_reference);
  }
}, 300_000);
afterAll(() => w?.close());

it('finds every injected difference among 10,000 settled payments, and no other; a second pull creates nothing', async () => {
  expect(new Set(references).size).toBe(PAYMENTS);
  const [over, under, omitted] = [every(10), every(20), every(40)];
  const amounts = new Map([...over.map((r) => [r, 2_500_100] as const), ...under.map((r) => [r, 2_499_900] as const)]);
  const omit = new Set(omitted);
  // Paystack settles a day's payments together: the fake sees each day paid, then settles it
  const days = new Map<string, BulkPayment[]>();
  for (const p of bulk) {
    const day = p.created_at.toISOString().slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), p]);
  }
  expect(days.size).toBeGreaterThanOrEqual(3);
  const settlements = [...days.entries()].map(([day, ps], n) => {
    w.paystack.sawPaid(ps.map((p) => ({ reference: p.vendor_reference as string, amount: Number(p.amount_minor), currency: 'NGN', at: p.created_at })));
    return w.paystack.settlements.settle({ amounts, omit, at: `${day}T23:00:00.000Z`, extra: n === days.size - 1 ? EXTRAS : [] });
  });
  // each settlement is more than one page of transactions (Paystack's perPage is at most 100)
  expect(settlements.every((s) => s.transactions.length > 100)).toBe(true);

  await w.svc.services.reconciliation.settlements.pull();
  const items = await allItems(w.svc, w.mids.card);
  const differ = new Set([...over, ...under, ...omitted]);
  // an item of ours is known by our payment; a payment nobody asked for, by Paystack's reference
  const ours = (refs: string[]) => refs.map((r) => gateway.get(r) as string).sort();
  expect(byState(items, (i) => i.gateway_reference ?? i.reference)).toEqual({
    matched: ours(references.filter((r) => !differ.has(r))),
    amount_over: ours(over),
    amount_under: ours(under),
    theirs_missing: ours(omitted),
    ours_missing: EXTRAS.map((e) => e.reference).sort(),
  });
  expect(items.filter((i) => i.state === 'amount_over').every((i) => i.theirs_amount === 25001)).toBe(true);
  expect(items.filter((i) => i.state === 'amount_under').every((i) => i.theirs_amount === 24999)).toBe(true);
  expect(await allItems(w.svc, w.mids.bank)).toEqual([]);
  expect(new Set(items.map((i) => i.day)).size).toBeGreaterThanOrEqual(3);

  const before = await counts(w.svc.services.db);
  expect(before.items).toBe(PAYMENTS + EXTRAS.length);
  await w.svc.services.reconciliation.settlements.pull();
  expect(await counts(w.svc.services.db)).toEqual(before);
}, 300_000);

it('once resolved, each day of the settlements equals the ledger to the minor unit but for what was acknowledged; the ledger has no drift', async () => {
  // what was acknowledged is exactly the payments nobody asked for less our payments left out
  const omitted = bulk.filter((_, k) => k % 100 === 40);
  await expectResolvedDaysEqualLedger(w.svc, w.mids.card, BigInt(EXTRAS.reduce((a, e) => a + e.amount, 0)) - omitted.reduce((a, p) => a + p.amount_minor, 0n));
}, 300_000);
