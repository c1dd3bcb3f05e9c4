// Proves the dispute deadline rule (docs/contract/disputes.md): 16 hours in Nigeria, 48 in Ghana, South Africa and Kenya, counted in the country's own time with the clock paused from Friday 23:59 to Monday 00:00; and the dispute journals balance, a partial acceptance debiting only its amount.
import { disputeDeadline, disputeHoldPlan, disputeOutcomePlan, inWalletCurrency } from '../../src/domain/dispute';
import { assertBalanced, sumByAccount } from '../../src/domain/ledger';

// 2026-12-04 is a Friday; every time is written in UTC, with the local time it is in the comment
const cases: [string, string, string, string][] = [
  // country, opened (UTC), deadline (UTC), why
  ['NG', '2026-11-30T08:00:00Z', '2026-12-01T00:00:00Z', 'Monday 09:00 Lagos: 16 running hours, no weekend'],
  ['NG', '2026-12-04T19:00:00Z', '2026-12-07T11:01:00Z', 'Friday 20:00 Lagos: 3h59 before the pause, 12h01 from Monday 00:00'],
  ['NG', '2026-12-05T09:00:00Z', '2026-12-07T15:00:00Z', 'Saturday 10:00 Lagos: counting starts Monday 00:00'],
  ['NG', '2026-12-04T22:59:00Z', '2026-12-07T15:00:00Z', 'Friday 23:59 Lagos exactly: paused at once'],
  ['GH', '2026-12-01T00:00:00Z', '2026-12-03T00:00:00Z', 'Tuesday 00:00 Accra: 48 running hours'],
  ['GH', '2026-12-03T12:00:00Z', '2026-12-07T12:01:00Z', 'Thursday 12:00 Accra: 35h59 before the pause, 12h01 from Monday'],
  ['ZA', '2026-12-02T21:00:00Z', '2026-12-04T21:00:00Z', 'Wednesday 23:00 Johannesburg: ends Friday 23:00, a minute before the pause'],
  ['ZA', '2026-12-06T10:00:00Z', '2026-12-08T22:00:00Z', 'Sunday 12:00 Johannesburg: Monday 00:00 + 48h is Wednesday 00:00 local'],
  ['KE', '2026-12-04T19:00:00Z', '2026-12-08T19:01:00Z', 'Friday 22:00 Nairobi: 1h59 before the pause, 46h01 from Monday'],
  ['KE', '2026-12-04T23:00:00Z', '2026-12-08T21:00:00Z', 'Friday 23:00 UTC is Saturday 02:00 in Nairobi: paused, the local day counts'],
  ['XX', '2026-11-30T08:00:00Z', '2026-12-01T00:00:00Z', 'a country without a rule takes the shortest (Nigeria\'s)'],
];

test.each(cases)('%s opened %s is due %s (%s)', (country, opened, due) => {
  expect(disputeDeadline(new Date(opened), country).toISOString()).toBe(new Date(due).toISOString());
});

const m = { walletId: 7, currency: 'NGN', heldMinor: 2_500_000n };

test('the hold takes the disputed amount from available into the dispute hold', () => {
  const plan = disputeHoldPlan(m);
  assertBalanced(plan.postings);
  expect(plan.kind).toBe('dispute_hold');
  expect(Object.fromEntries(sumByAccount(plan.postings))).toEqual({ '7:NGN:available': -2_500_000n, '7:NGN:dispute_hold': 2_500_000n });
});

test('won releases the hold; lost debits it all; a partial acceptance debits its amount and releases the rest', () => {
  const sums = (outcome: 'won' | 'lost' | 'accepted', debit: bigint) => {
    const plan = disputeOutcomePlan(m, outcome, debit);
    assertBalanced(plan.postings);
    return { kind: plan.kind, sums: Object.fromEntries(sumByAccount(plan.postings)) };
  };
  expect(sums('won', 2_500_000n)).toEqual({ kind: 'dispute_release', sums: { '7:NGN:dispute_hold': -2_500_000n, '7:NGN:available': 2_500_000n } });
  expect(sums('lost', 2_500_000n)).toEqual({ kind: 'dispute_debit', sums: { '7:NGN:dispute_hold': -2_500_000n, '-:NGN:processor_clearing': 2_500_000n } });
  expect(sums('accepted', 1_000_000n)).toEqual({
    kind: 'dispute_debit', sums: { '7:NGN:dispute_hold': -2_500_000n, '-:NGN:processor_clearing': 1_000_000n, '7:NGN:available': 1_500_000n },
  });
  // never more than was held
  expect(sums('lost', 9_000_000n).sums['-:NGN:processor_clearing']).toBe(2_500_000n);
});

test('a disputed amount in another currency is the wallet\'s share by the collection\'s own ratio, rounded down', () => {
  expect(inWalletCurrency(1000n, 1000n, 650_000n)).toBe(650_000n);
  expect(inWalletCurrency(333n, 1000n, 100n)).toBe(33n);
});
