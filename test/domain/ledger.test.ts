// Proves the postings of a completion and of a release: balanced, reserve and card settlement split and rounded right, zero amounts left out.
import {
  addDaysUtc,
  addMonthsUtc,
  assertBalanced,
  completionPlan,
  releasePlan,
  reserveOf,
  UnbalancedPostingsError,
} from '../../src/domain/ledger';
import type { CompletionInput, PostingDraft } from '../../src/domain/ledger';

const at = new Date('2025-01-31T10:00:00Z');
const base: CompletionInput = {
  walletId: 7,
  currency: 'UGX',
  paymentMethod: 'MOBILE_MONEY',
  accountAmountMinor: 100000n,
  feeMinor: 3000n,
  totalCreditMinor: 97000n,
  customerCharged: false,
  reservePercent: '0',
  reserveMonths: 0,
  cardSettlementDays: 0,
  completedAt: at,
};

/** account kind -> amount, for short expectations */
function byKind(postings: PostingDraft[]): Record<string, bigint> {
  return Object.fromEntries(postings.map((p) => [p.account.kind, p.amountMinor]));
}

describe('completionPlan', () => {
  it('merchant bears the fee: clearing gives the amount, revenue gets the fee, available the rest', () => {
    const plan = completionPlan(base);
    expect(byKind(plan.postings)).toEqual({ processor_clearing: -100000n, fee_revenue: 3000n, available: 97000n });
    expect(plan.holds).toEqual([]);
    expect(plan.postings.find((p) => p.account.kind === 'fee_revenue')?.account.walletId).toBeNull();
    expect(plan.postings.find((p) => p.account.kind === 'available')?.account.walletId).toBe(7);
  });

  it('customer bears the fee: clearing gives amount + fee, the wallet gets the whole amount', () => {
    const plan = completionPlan({ ...base, totalCreditMinor: 100000n, customerCharged: true });
    expect(byKind(plan.postings)).toEqual({ processor_clearing: -103000n, fee_revenue: 3000n, available: 100000n });
  });

  it('holds the reserve share for the reserve months and the card rest for the settlement days', () => {
    const plan = completionPlan({ ...base, paymentMethod: 'CARD', reservePercent: '10', reserveMonths: 6, cardSettlementDays: 3 });
    expect(byKind(plan.postings)).toEqual({ processor_clearing: -100000n, fee_revenue: 3000n, reserved: 9700n, pending: 87300n });
    expect(plan.holds).toEqual([
      { bucket: 'reserved', amountMinor: 9700n, releaseAt: new Date('2025-07-31T10:00:00Z') },
      { bucket: 'pending', amountMinor: 87300n, releaseAt: new Date('2025-02-03T10:00:00Z') },
    ]);
  });

  it('credits a card straight to available when card settlement is 0 days, and other methods always', () => {
    expect(byKind(completionPlan({ ...base, paymentMethod: 'CARD' }).postings).available).toBe(97000n);
    expect(byKind(completionPlan({ ...base, paymentMethod: 'BANK', cardSettlementDays: 5 }).postings).available).toBe(97000n);
  });

  it.each([
    // [total credit, percent, reserved]
    [97000n, '10', 9700n],
    [5n, '10', 1n], // 0.005 -> 0.01
    [4n, '10', 0n], // 0.004 -> 0.00: no reserved posting, no hold
    [15n, '2.5', 0n], // 0.00375 -> 0.00
    [20n, '2.5', 1n], // 0.005 -> 0.01
    [99999999999999n, '7.5', 7500000000000n], // 7499999999999.925 -> ...000 (rounded up)
    [97000n, '100', 97000n],
  ])('reserve of %p at %p%% is %p, and reserved + rest = total_credit', (total, percent, reserved) => {
    const plan = completionPlan({ ...base, accountAmountMinor: total + 3000n, totalCreditMinor: total, reservePercent: percent, reserveMonths: 3 });
    const k = byKind(plan.postings);
    expect(k.reserved ?? 0n).toBe(reserved);
    expect((k.reserved ?? 0n) + (k.available ?? 0n)).toBe(total);
    expect(plan.holds.map((h) => h.amountMinor)).toEqual(reserved > 0n ? [reserved] : []);
    assertBalanced(plan.postings);
  });

  it('holds nothing when the reserve period is 0 months', () => {
    expect(reserveOf(97000n, '10', 0)).toBe(0n);
    expect(byKind(completionPlan({ ...base, reservePercent: '10' }).postings).available).toBe(97000n);
  });

  it('leaves zero amounts out: no fee, or a fee that takes the whole amount', () => {
    expect(byKind(completionPlan({ ...base, feeMinor: 0n, totalCreditMinor: 100000n }).postings)).toEqual({
      processor_clearing: -100000n,
      available: 100000n,
    });
    expect(byKind(completionPlan({ ...base, feeMinor: 100000n, totalCreditMinor: 0n }).postings)).toEqual({
      processor_clearing: -100000n,
      fee_revenue: 100000n,
    });
  });

  it('balances at 10^12 major units with a fee and a reserve', () => {
    const amount = 100000000000000n;
    const plan = completionPlan({ ...base, accountAmountMinor: amount, feeMinor: 2750000000100n, totalCreditMinor: amount - 2750000000100n, reservePercent: '12.34', reserveMonths: 1 });
    expect(() => assertBalanced(plan.postings)).not.toThrow();
  });

  it('produces an unbalanced set for an inconsistent row, which assertBalanced stops', () => {
    const plan = completionPlan({ ...base, totalCreditMinor: 97001n });
    expect(() => assertBalanced(plan.postings)).toThrow(/do not balance in UGX: off by 1/);
  });

  it('refuses negative fees and credits', () => {
    expect(() => completionPlan({ ...base, feeMinor: -1n })).toThrow(UnbalancedPostingsError);
    expect(() => completionPlan({ ...base, totalCreditMinor: -1n })).toThrow(UnbalancedPostingsError);
    expect(() => completionPlan({ ...base, accountAmountMinor: 0n })).toThrow(UnbalancedPostingsError);
  });
});

describe('releasePlan', () => {
  it.each([
    ['reserved', 'reserve_release'],
    ['pending', 'settlement'],
  ] as const)('moves a %s hold to available as %s', (bucket, kind) => {
    const plan = releasePlan({ walletId: 7, currency: 'USD', bucket, amountMinor: 1234n });
    expect(plan.journalKind).toBe(kind);
    expect(byKind(plan.postings)).toEqual({ [bucket]: -1234n, available: 1234n });
    expect(plan.postings.every((p) => p.kind === kind && p.account.walletId === 7)).toBe(true);
    assertBalanced(plan.postings);
  });

  it('refuses an empty hold', () => {
    expect(() => releasePlan({ walletId: 7, currency: 'USD', bucket: 'pending', amountMinor: 0n })).toThrow(UnbalancedPostingsError);
  });
});

describe('assertBalanced', () => {
  const p = (currency: string, amountMinor: bigint): PostingDraft => ({ account: { kind: 'available', walletId: 1, currency }, amountMinor, kind: 'collection_credit' });

  it('accepts sets that sum to zero per currency', () => {
    expect(() => assertBalanced([p('UGX', 5n), p('UGX', -5n), p('USD', 1n), p('USD', -1n)])).not.toThrow();
  });

  it.each([
    ['one currency off', [p('UGX', 5n), p('UGX', -4n)]],
    ['one currency off below zero', [p('UGX', 4n), p('UGX', -5n)]],
    ['a credit with no debit at all', [p('UGX', -3n), p('UGX', -2n)]],
    ['balanced in total but not per currency', [p('UGX', 5n), p('USD', -5n)]],
    ['a zero posting', [p('UGX', 0n), p('UGX', 0n)]],
    ['a single posting', [p('UGX', 0n)]],
    ['nothing', []],
  ])('refuses %s', (_name, postings) => {
    expect(() => assertBalanced(postings)).toThrow(UnbalancedPostingsError);
  });
});

describe('release dates', () => {
  it.each([
    ['2025-01-31T10:00:00Z', 1, '2025-02-28T10:00:00Z'],
    ['2024-01-31T10:00:00Z', 1, '2024-02-29T10:00:00Z'],
    ['2025-03-15T23:59:59Z', 12, '2026-03-15T23:59:59Z'],
    ['2025-08-31T00:00:00Z', 6, '2026-02-28T00:00:00Z'],
    ['2025-05-10T08:00:00Z', 0, '2025-05-10T08:00:00Z'],
  ])('%s + %p months = %s', (from, months, to) => {
    expect(addMonthsUtc(new Date(from), months).toISOString()).toBe(new Date(to).toISOString());
  });

  it('adds days as whole 24-hour days in UTC', () => {
    expect(addDaysUtc(new Date('2025-12-30T12:00:00Z'), 3).toISOString()).toBe('2026-01-02T12:00:00.000Z');
  });
});
