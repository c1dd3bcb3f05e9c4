// Proves the totals of a MID's day per currency through the operator API, against the fake MTN over real
// sockets: four UGX requests to pay, and MTN's partner report of them on one fixed UTC day with one paid
// over, one reported in RWF (currency_mismatch), one reversed by MTN and a payment we never asked for.
// Each currency is totalled apart, to the minor unit: the RWF line under RWF on the processor's side, our
// UGX payment of it under UGX on ours; UGX and RWF are never added. A `day` that is not a day is refused
// with VALIDATION_ERROR naming it, by the list and by the export.
import { mtnPartnerReport } from '../fakes/mtn-partner-report';
import { errorFields, expectOk } from '../helpers/merchants';
import { collectedUgx, mtnReports } from '../helpers/mtn-reports';
import type { MtnReports } from '../helpers/mtn-reports';

/** the report's day (UTC): the payments were made today, MTN's lines say when MTN paid them */
const DAY = '2026-06-15';
const PAID_AT = new Date(`${DAY}T08:00:00Z`);

let live: MtnReports;
const references: string[] = [];

beforeAll(async () => {
  live = await mtnReports();
  for (let i = 0; i < 4; i++) {
    const { reference } = await collectedUgx(live, `DAYTOTALS-${process.pid}-${i}`);
    live.fake.requests.get(reference)!.paidAt = PAID_AT;
    references.push(reference);
  }
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await live?.close();
});

const day = (query: string) => live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?limit=500&${query}`);

it('totals a day of two currencies per currency: the processor by its line, ours by our currency', async () => {
  const [, over, foreign, reversed] = references;
  const report = mtnPartnerReport(live.fake, PAID_AT, 180, {
    amounts: new Map([[over, 50500]]), currencies: new Map([[foreign, 'RWF']]), reverse: new Set([reversed]), extra: [20000],
  });
  expect(expectOk(await live.svc.admin.post(`/v1/admin/mids/${live.m.midId}/statements`, undefined, { raw: report, headers: { 'content-type': 'text/csv' } }))).toMatchObject({ created: true, statement: { line_count: 6 } });

  const listed = expectOk(await day(`day=${DAY}`));
  expect(listed.items).toHaveLength(6);
  expect(listed.items.find((i: { state: string }) => i.state === 'currency_mismatch')).toMatchObject({ theirs_amount: 50000, theirs_currency: 'RWF', ours_amount: 50000, ours_currency: 'UGX' });
  expect(listed.totals).toEqual({
    currencies: [
      // the payment MTN reported in RWF: only the processor moved RWF
      { currency: 'RWF', theirs_amount: 50000, ours_amount: 0 },
      // MTN's: 50,000 matched, 50,500 paid over, 50,000 paid and 50,000 reversed, 20,000 we never asked for;
      // ours: the four payments, the one MTN reported in RWF included, the reversal not yet taken back
      { currency: 'UGX', theirs_amount: 50000 + 50500 + 50000 - 50000 + 20000, ours_amount: 4 * 50000 },
    ],
    states: { amount_over: 1, currency_mismatch: 1, matched: 2, ours_missing: 1, reversed_externally: 1 },
  });

  // another day of the MID has no currency and no state; without a day there are no totals
  expect(expectOk(await day('day=2026-06-16')).totals).toEqual({ currencies: [], states: {} });
  expect(expectOk(await day('')).totals).toBeNull();
});

it('a day that is not a day is refused with VALIDATION_ERROR naming it, by the list and the export', async () => {
  for (const bad of ['2026-02-30', '15-06-2026', '2026-6-15', `${DAY}T00:00:00Z`, 'today', '0000-01-01', '10000-01-01']) {
    expect(errorFields(await day(`day=${encodeURIComponent(bad)}`))).toEqual(['day']);
    const file = await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items/export?day=${encodeURIComponent(bad)}`);
    expect(errorFields(file)).toEqual(['day']);
  }
  // PostgreSQL has no year 0000, which a date's format takes: the contract's own rule names it
  expect((await day('day=0000-01-01')).body.data).toContainEqual({ field: 'day', message: 'must be a day of years 0001 to 9999' });
  // the day itself still answers as before
  expect(expectOk(await day(`day=${DAY}`)).totals.states).toEqual({ amount_over: 1, currency_mismatch: 1, matched: 2, ours_missing: 1, reversed_externally: 1 });
});
