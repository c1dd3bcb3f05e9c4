// Proves reconciliation with M-Pesa's organisation statement at scale, through the operator API: 10,000
// completed KES payments over three UTC days (a few made through the API against the fake Daraja, the rest
// copies of one of them as its completion left it: test/helpers/bulk-payments.ts, and recorded at the fake
// as paid), and the fake's statement of them with about 1% of each kind of difference M-Pesa's file can
// carry (amounts over, amounts under, payments we never asked for, payments left out past the deadline,
// reversals by Safaricom). Intake finds every injected difference and no other; the same file again creates
// nothing; once every difference is resolved (reversals through a second operator above the MID's
// threshold, amounts adjusted, the rest acknowledged) each day's total of the statement equals the ledger's
// to the minor unit but for what was acknowledged, and the ledger's drift check finds nothing.
import { ledgerDrift } from '../../src/ledger/ledger';
import { mpesaStatement } from '../fakes/mpesa-statement';
import { bulkPayments } from '../helpers/bulk-payments';
import type { BulkPayment } from '../helpers/bulk-payments';
import { expectOk } from '../helpers/merchants';
import { collectedKes, mpesaRefunds } from '../helpers/mpesa-refunds';
import type { MpesaRefunds } from '../helpers/mpesa-refunds';
import { allItems, byState, counts, daySides, expectDaysEqualLedger, resolveAll } from '../helpers/reconciliation-scale';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();
let live: MpesaRefunds;
const PAYMENTS = 10_000;
const BY_API = 3;
let statement = '';
const receipts: string[] = [];
const gateway = new Map<string, string>();
let bulk: BulkPayment[] = [];
/** every 100th payment of each kind: about 1% */
const every = (offset: number) => bulk.filter((_, k) => k % 100 === offset).map((p) => p.receipt as string);

beforeAll(async () => {
  live = await mpesaRefunds(clock);
  const refs: string[] = [];
  for (let i = 0; i < BY_API; i++) refs.push(await collectedKes(live.m, `SCALE-MP-${String(i).padStart(4, "0")}`, `2547083741${String(10 + i)}`));
  for (const ref of refs) {
    const row = await live.svc.services.db.one<{ receipt: string }>('SELECT pr.receipt FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id WHERE c.gateway_reference = $1', [ref]);
    receipts.push(row.receipt);
    gateway.set(row.receipt, ref);
  }
  // the rest over the three days before, at the fake as paid
  const now = clock.now().getTime();
  bulk = await bulkPayments(live.svc.services.db, { template: refs[0], count: PAYMENTS - BY_API, tag: 'MP', from: new Date(now - 3 * 86_400_000), until: new Date(now - 60_000) });
  live.fake.sawPaid(bulk.map((p) => ({ receipt: p.receipt as string, amount: Number(p.amount_minor) / 100, phone: p.account_number ?? '254708374149', accountReference: p.gateway_reference, at: p.created_at })));
  for (const p of bulk) {
    receipts.push(p.receipt as string);
    gateway.set(p.receipt as string, p.gateway_reference);
  }
  // four days on: every payment is past the MID's T+3 deadline when the statement is taken in
  clock.advance(4 * 86_400_000);
}, 300_000);
afterAll(async () => {
  await live?.close();
});

const upload = (text: string) => live.svc.admin.post(`/v1/admin/mids/${live.m.midId}/statements`, undefined, { raw: text, headers: { 'content-type': 'text/csv' } });

it('finds every injected difference in a 10,000-payment statement, and no other; the same file again creates nothing', async () => {
  expect(receipts).toHaveLength(PAYMENTS);
  const [over, under, omitted, reversed] = [every(10), every(20), every(30), every(40)];
  const extras = Array.from({ length: 100 }, (_, i) => 2000 + i);
  statement = mpesaStatement(live.fake, {
    amounts: new Map([...over.map((r) => [r, 1510] as const), ...under.map((r) => [r, 1450] as const)]),
    omit: new Set(omitted), reverse: new Set(reversed), extra: extras,
  });
  const res = expectOk(await upload(statement));
  expect(res.created).toBe(true);
  expect(res.statement).toMatchObject({ source: 'mpesa_statement', line_count: PAYMENTS - omitted.length + extras.length + reversed.length });

  const items = await allItems(live.svc, live.m.midId);
  const differ = new Set([...over, ...under, ...omitted]);
  expect(byState(items.filter((i) => i.state !== 'ours_missing' && i.state !== 'reversed_externally'), (i) => i.reference)).toEqual({
    matched: receipts.filter((r) => !differ.has(r)).sort(),
    amount_over: [...over].sort(),
    amount_under: [...under].sort(),
    theirs_missing: [...omitted].sort(),
  });
  // a reversal is named by its own receipt: it is known by the collection it reverses
  expect(byState(items.filter((i) => i.state === 'reversed_externally'), (i) => i.gateway_reference)).toEqual({ reversed_externally: reversed.map((r) => gateway.get(r) as string).sort() });
  expect(items.filter((i) => i.state === 'ours_missing').map((i) => i.theirs_amount).sort()).toEqual(extras);
  expect(items).toHaveLength(PAYMENTS + extras.length + reversed.length);
  // three UTC days at least (four when the spread starts late in a day)
  expect(new Set(items.map((i) => i.day)).size).toBeGreaterThanOrEqual(3);

  const before = await counts(live.svc.services.db);
  const again = expectOk(await upload(statement));
  expect(again.created).toBe(false);
  expect(again.statement.id).toBe(res.statement.id);
  expect(await counts(live.svc.services.db)).toEqual(before);
}, 300_000);

it('once resolved, each day of the statement equals the ledger to the minor unit but for what was acknowledged; the ledger has no drift', async () => {
  // a threshold of 1,000.00 KES: a reversal (1,500.00) waits for a second operator, an adjustment (10.00 or 50.00) does not
  expectOk(await live.svc.admin.put(`/v1/admin/mids/${live.m.midId}/reconciliation-settings`, { theirs_missing_days: 3, approval_threshold: 1000 }));
  const second = await signedIn(live.svc, await createUser(live.svc, { role: 'operator_admin', totp: true }), clock);
  const items = await allItems(live.svc, live.m.midId);
  const waited = await resolveAll(live.svc, live.m.midId, items, (path) => second.post(path));
  expect(waited.sort()).toEqual(items.filter((i) => i.state === 'reversed_externally').map((i) => i.id).sort());

  const after = await allItems(live.svc, live.m.midId);
  expect(after.filter((i) => i.state !== 'matched' && i.resolution !== 'resolved')).toEqual([]);
  const reversedCollections = await live.svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM collections WHERE mid_id = $1 AND status = 'REVERSED'", [live.m.midId]);
  expect(reversedCollections.n).toBe(waited.length);
  const days = await daySides(live.svc, live.m.midId);
  expect(new Set(days.map((d) => d.currency))).toEqual(new Set(['KES']));
  expectDaysEqualLedger(days);
  // what was acknowledged is exactly the payments nobody asked for less the payments left out
  expect(days.reduce((a, d) => a + d.acknowledged_minor, 0n)).toBe(BigInt(Array.from({ length: 100 }, (_, i) => 2000 + i).reduce((a, b) => a + b, 0)) * 100n - 100n * 150_000n);
  expect(await ledgerDrift(live.svc.services.db)).toEqual([]);
}, 300_000);
