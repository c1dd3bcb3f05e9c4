// Proves reconciliation with MTN MoMo's partner report at scale, through the operator API: 10,000 completed
// UGX requests to pay over three UTC days (a few made through the API against the fake MTN, the rest copies
// of one of them as its completion left it: test/helpers/bulk-payments.ts, and recorded at the fake as
// paid), and the fake's report of them with about 1% of each kind of difference MTN's report can carry
// (amounts over, amounts under, another currency, payments we never asked for, payments left out past the
// deadline, reversals by MTN). Intake finds every injected difference and no other; the same report again
// creates nothing; once every difference is resolved (reversals through a second operator above the MID's
// threshold, amounts adjusted, the rest acknowledged) each day's total of the report in each currency equals
// the ledger's to the minor unit but for what was acknowledged, and the ledger's drift check finds nothing.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { mtnPartnerReport } from '../fakes/mtn-partner-report';
import { bulkPayments } from '../helpers/bulk-payments';
import type { BulkPayment } from '../helpers/bulk-payments';
import { FAST_PROCESSORS, liveMerchant } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { allItems, byState, counts, expectResolvedDaysEqualLedger } from '../helpers/reconciliation-scale';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();
const PAYMENTS = 10_000;
const BY_API = 3;
let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let report = '';
const references: string[] = [];
const gateway = new Map<string, string>();
let bulk: BulkPayment[] = [];
/** every 100th payment of each kind: about 1% */
const every = (offset: number) => bulk.filter((_, k) => k % 100 === offset).map((p) => p.reference);
const EXTRAS = Array.from({ length: 100 }, (_, i) => 20_000 + i);

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS }, now: clock.now });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
  const made: string[] = [];
  for (let i = 0; i < BY_API; i++) {
    const res = expectOk(await m.client.post('/v1/collections/request-to-pay', {
      currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: `SCALE-MTN-${String(i).padStart(4, '0')}`, narration: 'Order for live goods',
    }));
    await eventually(async () => expectOk(await m.client.get(`/v1/collections/${res.gateway_reference}`)).transaction_status === 'COMPLETED', 15_000, 'completed');
    const reference = fake.byExternalId(res.gateway_reference)!.reference;
    made.push(res.gateway_reference);
    references.push(reference);
    gateway.set(reference, res.gateway_reference);
  }
  // the rest over the six to three and a half days before, at the fake as paid: all past the MID's T+3 deadline
  const now = clock.now().getTime();
  bulk = await bulkPayments(svc.services.db, { template: made[0], count: PAYMENTS - BY_API, tag: 'MT', from: new Date(now - 6 * 86_400_000), until: new Date(now - 3.5 * 86_400_000) });
  fake.sawPaid(bulk.map((p) => ({ reference: p.reference, externalId: p.gateway_reference, amount: '50000', currency: 'UGX', partyId: p.account_number ?? '256772123456', at: p.created_at })));
  for (const p of bulk) {
    references.push(p.reference);
    gateway.set(p.reference, p.gateway_reference);
  }
}, 300_000);
afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const upload = (text: string) => svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: text, headers: { 'content-type': 'text/csv; charset=utf-8' } });

it('finds every injected difference in a 10,000-payment partner report, and no other; the same report again creates nothing', async () => {
  expect(references).toHaveLength(PAYMENTS);
  const [over, under, foreign, omitted, reversed] = [every(10), every(20), every(30), every(40), every(50)];
  report = mtnPartnerReport(fake, clock.now(), 180, {
    amounts: new Map([...over.map((r) => [r, 50500] as const), ...under.map((r) => [r, 49500] as const)]),
    currencies: new Map(foreign.map((r) => [r, 'RWF'])), omit: new Set(omitted), reverse: new Set(reversed), extra: EXTRAS,
  });
  const res = expectOk(await upload(report));
  expect(res).toMatchObject({ created: true, statement: { source: 'mtn_partner_report', line_count: PAYMENTS - omitted.length + EXTRAS.length + reversed.length } });

  const items = await allItems(svc, m.midId);
  const differ = new Set([...over, ...under, ...foreign, ...omitted]);
  expect(byState(items.filter((i) => i.state !== 'ours_missing' && i.state !== 'reversed_externally'), (i) => i.reference)).toEqual({
    matched: references.filter((r) => !differ.has(r)).sort(),
    amount_over: [...over].sort(),
    amount_under: [...under].sort(),
    currency_mismatch: [...foreign].sort(),
    theirs_missing: [...omitted].sort(),
  });
  // a reversal is named by MTN's own id: it is known by the collection it reverses
  expect(byState(items.filter((i) => i.state === 'reversed_externally'), (i) => i.gateway_reference)).toEqual({ reversed_externally: reversed.map((r) => gateway.get(r) as string).sort() });
  expect(items.filter((i) => i.state === 'ours_missing').map((i) => i.theirs_amount).sort()).toEqual(EXTRAS);
  expect(items.filter((i) => i.state === 'currency_mismatch').every((i) => i.theirs_currency === 'RWF')).toBe(true);
  expect(items).toHaveLength(PAYMENTS + EXTRAS.length + reversed.length);
  expect(new Set(items.map((i) => i.day)).size).toBeGreaterThanOrEqual(3);

  const before = await counts(svc.services.db);
  const again = expectOk(await upload(report));
  expect(again.created).toBe(false);
  expect(again.statement.id).toBe(res.statement.id);
  expect(await counts(svc.services.db)).toEqual(before);
}, 300_000);

it('once resolved, each day of the report equals the ledger to the minor unit but for what was acknowledged; the ledger has no drift', async () => {
  // a threshold of 40,000 UGX: a reversal (50,000) waits for a second operator, an adjustment (500) does not
  expectOk(await svc.admin.put(`/v1/admin/mids/${m.midId}/reconciliation-settings`, { theirs_missing_days: 3, approval_threshold: 40000 }));
  const second = await signedIn(svc, await createUser(svc, { role: 'operator_admin', totp: true }), clock);
  const reversed = (await allItems(svc, m.midId)).filter((i) => i.state === 'reversed_externally').map((i) => i.id).sort();
  // what was acknowledged is exactly, in UGX, the payments nobody asked for less the payments left out and
  // less ours of the payments MTN reported in RWF, and in RWF those payments as MTN reported them: each side
  // of a payment in another currency counts in its own currency
  const minorPerUnit = bulk[0].amount_minor / 50000n;
  const omitted = bulk.filter((_, k) => k % 100 === 40);
  const foreign = bulk.filter((_, k) => k % 100 === 30);
  const acknowledged = {
    UGX: BigInt(EXTRAS.reduce((a, b) => a + b, 0)) * minorPerUnit - omitted.reduce((a, p) => a + p.amount_minor, 0n) - foreign.reduce((a, p) => a + p.amount_minor, 0n),
    RWF: BigInt(foreign.length) * 50000n * minorPerUnit,
  };
  const waited = await expectResolvedDaysEqualLedger(svc, m.midId, acknowledged, (path) => second.post(path));
  expect(waited.sort()).toEqual(reversed);
  const reversedCollections = await svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM collections WHERE mid_id = $1 AND status = 'REVERSED'", [m.midId]);
  expect(reversedCollections.n).toBe(waited.length);
}, 300_000);
