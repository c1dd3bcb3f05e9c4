// Proves reconciliation of money out with MTN MoMo's partner report through the operator API, against the fake
// MTN over real sockets: the fake writes the report of the payments, refunds and transfers it carried out
// (REFUND and TRANSFER rows under the X-Reference-Id of our refund or transfer) with a refund paid over, a
// refund left out and a transfer we never asked for injected; intake matches each refund with our refund and
// each transfer with our disbursement and finds each difference and no other; a second upload creates
// nothing; the refund left out is theirs_missing once its deadline has passed; an item of a refund is
// acknowledged, never reversed or adjusted; MTN's reversal of a payment we refunded part of is still the
// operator's reversal (reversed_externally), never taken for our refund.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { mtnPartnerReport } from '../fakes/mtn-partner-report';
import { FAST_PROCESSORS, liveMerchant, secretOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock } from '../helpers/users';

interface Item {
  id: number;
  state: string;
  reference: string;
  line_kind: string | null;
  subject: string | null;
  subject_reference: string | null;
  ours_amount: number | null;
  theirs_amount: number | null;
  resolution: string | null;
  action: string | null;
}

/**
 * The service's clock, set to noon (UTC) of the day the file runs: what the service records and every line of
 * the reports (at times read from it) fall on that one day, however near midnight the test runs.
 */
const clock = new Clock();
const NOON = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000;
clock.advance(NOON - Date.now());
const DAY = new Date(NOON).toISOString().slice(0, 10);
let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
/** the report's time of the payments: before them all, so its period covers what follows */
let started: Date;
const collections: string[] = [];
/** our refunds and disbursements: gateway reference and our reference at MTN (X-Reference-Id) */
const refunds: { gateway: string; reference: string }[] = [];
const payouts: { gateway: string; reference: string }[] = [];
let seq = 0;

async function ended(path: string, gateway: string, opts?: object) {
  await eventually(async () => expectOk(await m.client.get(`${path}/${gateway}`, opts)).transaction_status === 'COMPLETED', 15_000, `${path} completed`);
}

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS }, now: clock.now });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.refundCredentials(), webhookUrl: hooks.url });
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
  started = clock.now();
  for (let i = 0; i < 3; i++) {
    const res = expectOk(await m.client.post('/v1/collections/request-to-pay', {
      currency: 'UGX', amount: 100000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: `MTNOUT-${process.pid}-${i}`, narration: 'Order for live goods',
    }));
    await ended('/v1/collections', res.gateway_reference);
    collections.push(res.gateway_reference);
  }
  for (const [i, amount] of [20000, 10000, 15000].entries()) {
    seq += 1;
    const r = expectOk(await m.client.post(`/v1/collections/${collections[i]}/refunds`, { amount, merchant_reference: `MTNOUT-RFD-${process.pid}-${seq}` }));
    await ended('/v1/refunds', r.gateway_reference);
    refunds.push({ gateway: r.gateway_reference, reference: (await svc.services.db.one('SELECT reference FROM refunds WHERE gateway_reference = $1', [r.gateway_reference])).reference });
  }
  for (const amount of [30000, 25000]) {
    seq += 1;
    const d = expectOk(await m.client.post('/v1/disbursements', {
      amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Jane Driver', merchant_reference: `MTNOUT-PAY-${process.pid}-${seq}`, narration: 'Weekly earnings',
    }, secretOf(m)));
    await ended('/v1/disbursements', d.gateway_reference, secretOf(m));
    payouts.push({ gateway: d.gateway_reference, reference: (await svc.services.db.one('SELECT reference FROM disbursements WHERE gateway_reference = $1', [d.gateway_reference])).reference });
  }
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const items = async (query = '') => expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?limit=500${query}`)).items as Item[];
const journals = async () => (await svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM journals WHERE kind IN ('reconciliation_reversal', 'reconciliation_adjustment')")).n;

it('matches refunds with our refunds and transfers with our disbursements, finds each difference and no other; the same report twice creates nothing', async () => {
  const [matchedRefund, overRefund, leftOut] = refunds;
  const report = mtnPartnerReport(fake, started, 180, {
    moneyOut: { at: clock.now(), amounts: new Map([[overRefund.reference, 10500]]), omit: new Set([leftOut.reference]), extraPayouts: [40000] },
  });
  const upload = () => svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: report, headers: { 'content-type': 'text/csv; charset=utf-8' } });
  const first = expectOk(await upload());
  // 3 payments, 2 refunds (one left out), 2 transfers and the one we never asked for
  expect(first).toMatchObject({ created: true, statement: { source: 'mtn_partner_report', line_count: 8 } });
  const all = await items();
  const states: Record<string, string[]> = {};
  for (const i of all) (states[i.state] ??= []).push(i.reference);
  const stranger = all.find((i) => i.state === 'ours_missing')!;
  expect(Object.fromEntries(Object.entries(states).map(([k, v]) => [k, v.sort()]))).toEqual({
    matched: [...collections.map((c) => fake.byExternalId(c)!.reference), matchedRefund.reference, ...payouts.map((p) => p.reference)].sort(),
    amount_over: [overRefund.reference],
    ours_missing: [stranger.reference],
  });
  expect(stranger).toMatchObject({ line_kind: 'payout', subject: null, subject_reference: null, ours_amount: null, theirs_amount: 40000 });
  expect(all.find((i) => i.reference === matchedRefund.reference)).toMatchObject({ line_kind: 'refund', subject: 'refund', subject_reference: matchedRefund.gateway, ours_amount: 20000, theirs_amount: 20000 });
  expect(all.find((i) => i.reference === overRefund.reference)).toMatchObject({ line_kind: 'refund', subject: 'refund', subject_reference: overRefund.gateway, ours_amount: 10000, theirs_amount: 10500 });
  for (const p of payouts) expect(all.find((i) => i.reference === p.reference)).toMatchObject({ line_kind: 'payout', subject: 'disbursement', subject_reference: p.gateway });
  const day = expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?limit=500&day=${DAY}`));
  // all on the clock's one day (UTC): the payments less the money out on both sides; ours without the payout we have no record of
  expect(day.items).toEqual(all);
  expect(day.totals.currencies).toEqual([{ currency: 'UGX', theirs_amount: 300000 - 20000 - 10500 - 30000 - 25000 - 40000, ours_amount: 300000 - 20000 - 10000 - 30000 - 25000 }]);
  const again = expectOk(await upload());
  expect(again.created).toBe(false);
  expect(await items()).toEqual(all);
});

it('a refund of ours no report gave becomes theirs_missing once its deadline has passed, once', async () => {
  const leftOut = refunds[2];
  const missing = () => items('&state=theirs_missing');
  expect(await missing()).toEqual([]);
  const late = new Date(clock.now().getTime() + 4 * 86_400_000);
  expect(await svc.services.reconciliation.intake.missingDue(late)).toBe(1);
  expect(await svc.services.reconciliation.intake.missingDue(late)).toBe(0);
  expect(await missing()).toMatchObject([{ reference: leftOut.reference, subject: 'refund', subject_reference: leftOut.gateway, line_kind: null, ours_amount: 15000, theirs_amount: null }]);
});

it('an item of a refund is acknowledged; reversing or adjusting it is refused and changes nothing', async () => {
  const over = (await items('&state=amount_over'))[0];
  const base = `/v1/admin/mids/${m.midId}/reconciliation-items/${over.id}`;
  for (const action of ['reverse', 'adjust']) {
    const refused = await svc.admin.post(`${base}/resolve`, { action, reason: 'MTN paid the customer 500 more' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'INVALID_STATE', message: 'The item is of a refund: money out is not reversed or adjusted here; acknowledge the item instead' });
  }
  expect(await journals()).toBe(0);
  expect((await items('&state=amount_over'))[0]).toEqual(over);
  const acknowledged = expectOk(await svc.admin.post(`${base}/resolve`, { action: 'acknowledge', reason: 'MTN paid the customer 500 more; taken up with MTN' }));
  expect(acknowledged).toMatchObject({ id: over.id, resolution: 'resolved', action: 'acknowledge', subject: 'refund' });
  expect(await journals()).toBe(0);
});

it('refuses a report whose refund row names no reference of ours, naming its line, and keeps nothing of it', async () => {
  const count = () => svc.services.db.one<{ statements: number; lines: number; items: number }>(
    `SELECT (SELECT count(*)::int FROM reconciliation_statements) AS statements, (SELECT count(*)::int FROM reconciliation_lines) AS lines,
       (SELECT count(*)::int FROM reconciliation_items) AS items`,
  );
  const before = await count();
  const rows = mtnPartnerReport(fake, clock.now(), 180, { moneyOut: {} }).split('\r\n');
  const refundRow = rows.findIndex((r) => r.includes(',REFUND,'));
  const cells = rows[refundRow].split(',');
  cells[1] = '';
  rows[refundRow] = cells.join(',');
  const res = await svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: rows.join('\r\n'), headers: { 'content-type': 'text/csv' } });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message: `The statement cannot be read: line ${refundRow + 1}: a refund without an External Transaction Id` });
  expect(await count()).toEqual(before);
});

it('a reversal by MTN of a payment we refunded part of is the operator’s reversal, not our refund: reversed_externally', async () => {
  // our refund of the first payment is its own REFUND row (matched above); MTN's REVERSAL names the payment by its X-Reference-Id
  const reversed = fake.byExternalId(collections[0])!.reference;
  const report = mtnPartnerReport(fake, new Date(Date.now() + 2_000), 180, { reverse: new Set([reversed]) });
  const before = await items();
  expectOk(await svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: report, headers: { 'content-type': 'text/csv; charset=utf-8' } }));
  const made = (await items()).filter((i) => !before.some((b) => b.id === i.id));
  expect(made).toMatchObject([{ state: 'reversed_externally', line_kind: 'reversal', subject: 'collection', subject_reference: collections[0], ours_amount: 100000, theirs_amount: 100000 }]);
});
