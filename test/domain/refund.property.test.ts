// Proves with random sequences of collections, refunds, disbursements and their outcomes that the refund and disbursement functions keep the ledger's invariants: every journal balances, no wallet part goes below zero (a refund and a disbursement compete for one available balance), what disbursements hold is exactly what the model holds, refunds never exceed what was paid, refunds of a whole collection debit exactly its account_amount, and a refund has one hold and at most one outcome.
import fc from 'fast-check';
import { accountName, assertBalanced, completionPlan, sumByAccount } from '../../src/domain/ledger';
import type { PostingDraft } from '../../src/domain/ledger';
import {
  availableCovers,
  canRefundMove,
  refundMovesFrom,
  countsAgainstPaid,
  isRefundFinal,
  refundAmounts,
  refundHoldPlan,
  refundOutcomePlan,
  RefundRefused,
} from '../../src/domain/refund';
import type { RefundFinal, RefundStatus } from '../../src/domain/refund';
import { canDisbursementMove, DISBURSEMENT_STATUSES, disbursementHoldPlan, disbursementOutcomePlan, isDisbursementSettled } from '../../src/domain/disbursement';
import type { DisbursementStatus } from '../../src/domain/disbursement';

const WALLET = { walletId: 1, currency: 'UGX' };

interface Paid {
  requestAmountMinor: bigint;
  accountAmountMinor: bigint;
  refundedMinor: bigint;
  refundedAccountMinor: bigint;
}

interface Refund {
  collection: number;
  status: RefundStatus;
  accountAmountMinor: bigint;
  amountMinor: bigint;
  outcomes: number;
}

type Event =
  | { kind: 'collect'; request: bigint; ratePercent: number; feeMinor: bigint; customerBears: boolean }
  | { kind: 'refund'; collection: number; amount: bigint | null }
  | { kind: 'outcome'; refund: number; to: RefundStatus }
  | { kind: 'disburse'; amount: bigint; fee: bigint }
  | { kind: 'payout'; disbursement: number; to: DisbursementStatus };

interface Payout {
  status: DisbursementStatus;
  amountMinor: bigint;
  feeMinor: bigint;
}

class Book {
  paid: Paid[] = [];
  refunds: Refund[] = [];
  postings: PostingDraft[] = [];
  /** the model, kept without the production functions: available and held per wallet */
  available = 0n;
  held = 0n;
  payouts: Payout[] = [];
  /** the model of what disbursements hold */
  payoutHeld = 0n;

  post(postings: PostingDraft[]) {
    assertBalanced(postings);
    this.postings.push(...postings);
  }

  balance(kind: string): bigint {
    return sumByAccount(this.postings).get(accountName({ kind: kind as 'available', ...WALLET })) ?? 0n;
  }

  collect(e: Extract<Event, { kind: 'collect' }>) {
    // account_amount = request x rate (a rate of 50% .. 150%, rounded), any conversion is the collection's own
    const account = (e.request * BigInt(e.ratePercent) + 50n) / 100n;
    if (account <= 0n) return;
    const fee = e.feeMinor > account ? account : e.feeMinor;
    const credit = e.customerBears ? account : account - fee;
    const plan = completionPlan({
      ...WALLET, paymentMethod: 'MOBILE_MONEY', accountAmountMinor: account, feeMinor: fee, totalCreditMinor: credit,
      customerCharged: e.customerBears, reservePercent: '0', reserveMonths: 0, cardSettlementDays: 0, completedAt: new Date(0),
    });
    this.post(plan.postings);
    this.available += credit;
    this.paid.push({ requestAmountMinor: e.request, accountAmountMinor: account, refundedMinor: 0n, refundedAccountMinor: 0n });
  }

  refund(e: Extract<Event, { kind: 'refund' }>) {
    const c = this.paid[e.collection % Math.max(1, this.paid.length)];
    if (!c) return;
    let amounts;
    try {
      amounts = refundAmounts(c, e.amount);
    } catch (err) {
      expect(err).toBeInstanceOf(RefundRefused);
      if ((err as RefundRefused).why === 'too_small') {
        // only a partial refund converts to nothing: the one that completes the whole takes what was rounded down
        expect(e.amount !== null && e.amount < c.requestAmountMinor - c.refundedMinor).toBe(true);
        expect((c.accountAmountMinor * (c.refundedMinor + e.amount!)) / c.requestAmountMinor <= c.refundedAccountMinor).toBe(true);
        return;
      }
      expect(e.amount === null ? c.refundedMinor >= c.requestAmountMinor : e.amount <= 0n || e.amount > c.requestAmountMinor - c.refundedMinor).toBe(true);
      return;
    }
    if (!availableCovers(this.balance('available'), amounts.accountAmountMinor)) {
      expect(this.available < amounts.accountAmountMinor).toBe(true);
      return; // refused: INSUFFICIENT_FUNDS, nothing written
    }
    this.post(refundHoldPlan({ ...WALLET, accountAmountMinor: amounts.accountAmountMinor }).postings);
    c.refundedMinor += amounts.amountMinor;
    c.refundedAccountMinor += amounts.accountAmountMinor;
    this.available -= amounts.accountAmountMinor;
    this.held += amounts.accountAmountMinor;
    this.refunds.push({ collection: this.paid.indexOf(c), status: 'PENDING', ...amounts, outcomes: 0 });
  }

  outcome(e: Extract<Event, { kind: 'outcome' }>) {
    const r = this.refunds[e.refund % Math.max(1, this.refunds.length)];
    if (!r || !canRefundMove(r.status, e.to)) {
      if (r) expect(isRefundFinal(r.status) || e.to === 'PENDING' || (r.status === 'PROCESSING' && e.to === 'PROCESSING')).toBe(true);
      return;
    }
    r.status = e.to;
    if (!isRefundFinal(e.to)) return;
    this.post(refundOutcomePlan(e.to as RefundFinal, { ...WALLET, accountAmountMinor: r.accountAmountMinor }).postings);
    r.outcomes += 1;
    this.held -= r.accountAmountMinor;
    if (e.to !== 'COMPLETED') {
      this.available += r.accountAmountMinor;
      this.paid[r.collection].refundedMinor -= r.amountMinor;
      this.paid[r.collection].refundedAccountMinor -= r.accountAmountMinor;
    }
  }

  /** A disbursement from the same wallet: amount + fee held from available when it covers them, else refused. */
  disburse(e: Extract<Event, { kind: 'disburse' }>) {
    if (this.available < e.amount + e.fee) return; // refused: INSUFFICIENT_FUNDS, nothing written
    this.post(disbursementHoldPlan({ ...WALLET, amountMinor: e.amount, feeMinor: e.fee }).postings);
    this.available -= e.amount + e.fee;
    this.payoutHeld += e.amount + e.fee;
    this.payouts.push({ status: 'PENDING', amountMinor: e.amount, feeMinor: e.fee });
  }

  payout(e: Extract<Event, { kind: 'payout' }>) {
    const d = this.payouts[e.disbursement % Math.max(1, this.payouts.length)];
    if (!d || !canDisbursementMove(d.status, e.to)) return;
    const plan = disbursementOutcomePlan(e.to, { ...WALLET, ...d });
    const was = d.status;
    d.status = e.to;
    if (!plan) return;
    this.post(plan.postings);
    const total = d.amountMinor + d.feeMinor;
    if (e.to === 'REVERSED') this.available += total;
    else if (!isDisbursementSettled(was)) {
      this.payoutHeld -= total;
      if (e.to !== 'COMPLETED') this.available += total;
    }
  }

  check() {
    expect(this.balance('disbursement_hold')).toBe(this.payoutHeld);
    expect(this.payoutHeld >= 0n).toBe(true);
    expect(this.balance('available')).toBe(this.available);
    expect(this.balance('refund_hold')).toBe(this.held);
    expect(this.available >= 0n && this.held >= 0n).toBe(true);
    this.paid.forEach((c, i) => {
      const counted = this.refunds.filter((r) => r.collection === i && countsAgainstPaid(r.status));
      expect(counted.reduce((a, r) => a + r.amountMinor, 0n)).toBe(c.refundedMinor);
      expect(c.refundedMinor <= c.requestAmountMinor).toBe(true);
      // refunds that give back the whole collection take exactly its account_amount from the wallet
      if (c.refundedMinor === c.requestAmountMinor) expect(counted.reduce((a, r) => a + r.accountAmountMinor, 0n)).toBe(c.accountAmountMinor);
    });
    for (const r of this.refunds) expect(r.outcomes).toBe(isRefundFinal(r.status) ? 1 : 0);
  }
}

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.record({
    kind: fc.constant('collect' as const),
    request: fc.bigInt({ min: 1n, max: 10_000_000n }),
    ratePercent: fc.integer({ min: 50, max: 150 }),
    feeMinor: fc.bigInt({ min: 0n, max: 50_000n }),
    customerBears: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('refund' as const),
    collection: fc.nat(20),
    amount: fc.option(fc.bigInt({ min: -5n, max: 6_000_000n }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('outcome' as const), refund: fc.nat(40), to: fc.constantFrom<RefundStatus>('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED') }),
  fc.record({ kind: fc.constant('disburse' as const), amount: fc.bigInt({ min: 1n, max: 4_000_000n }), fee: fc.bigInt({ min: 0n, max: 20_000n }) }),
  fc.record({ kind: fc.constant('payout' as const), disbursement: fc.nat(40), to: fc.constantFrom(...DISBURSEMENT_STATUSES) }),
);

test('refund and disbursement postings keep every invariant over any sequence of collections, refunds, disbursements and outcomes', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 80 }), (events) => {
      const book = new Book();
      for (const e of events) {
        if (e.kind === 'collect') book.collect(e);
        else if (e.kind === 'refund') book.refund(e);
        else if (e.kind === 'disburse') book.disburse(e);
        else if (e.kind === 'payout') book.payout(e);
        else book.outcome(e);
        book.check();
      }
    }),
    { numRuns: 300 },
  );
});

test('partial refunds that add up to the whole debit exactly the account amount, whatever the rounding', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 1_000_000n }), fc.bigInt({ min: 1n, max: 9_999_999n }), fc.array(fc.bigInt({ min: 1n, max: 400_000n }), { maxLength: 12 }), (request, account, parts) => {
      const c = { requestAmountMinor: request, accountAmountMinor: account, refundedMinor: 0n, refundedAccountMinor: 0n };
      for (const part of parts) {
        if (c.refundedMinor + part >= request) break;
        let debit: bigint;
        try {
          debit = refundAmounts(c, part).accountAmountMinor;
        } catch (err) {
          // a part too small to move a minor unit of the wallet's currency is refused and changes nothing
          expect(err).toEqual(expect.objectContaining({ why: 'too_small' }));
          continue;
        }
        expect(debit).toBeGreaterThan(0n);
        c.refundedMinor += part;
        c.refundedAccountMinor += debit;
      }
      const last = refundAmounts(c, null).accountAmountMinor;
      expect(last).toBeGreaterThan(0n);
      expect(c.refundedAccountMinor + last).toBe(account);
    }),
  );
});

test('the state machine: PENDING moves anywhere else, PROCESSING only to a final state, a final state never', () => {
  const all: RefundStatus[] = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'];
  const allowed = all.flatMap((from) => all.filter((to) => canRefundMove(from, to)).map((to) => `${from}->${to}`));
  expect(allowed).toEqual([
    'PENDING->PROCESSING', 'PENDING->COMPLETED', 'PENDING->FAILED', 'PENDING->CANCELLED',
    'PROCESSING->COMPLETED', 'PROCESSING->FAILED', 'PROCESSING->CANCELLED',
  ]);
});

test('the one guard of a refund\'s move: PROCESSING only from PENDING (never PROCESSING again), a final state from PENDING or PROCESSING, PENDING from nowhere', () => {
  expect(refundMovesFrom('PROCESSING')).toEqual(['PENDING']);
  for (const to of ['COMPLETED', 'FAILED', 'CANCELLED'] as const) expect(refundMovesFrom(to)).toEqual(['PENDING', 'PROCESSING']);
  expect(refundMovesFrom('PENDING')).toEqual([]);
});

test('bad refund amounts are refused with the reason', () => {
  const c = { requestAmountMinor: 5000n, accountAmountMinor: 5000n, refundedMinor: 3000n, refundedAccountMinor: 3000n };
  expect(() => refundAmounts(c, 2001n)).toThrow(expect.objectContaining({ why: 'over_refund' }));
  expect(() => refundAmounts(c, 0n)).toThrow(expect.objectContaining({ why: 'not_positive' }));
  expect(() => refundAmounts({ ...c, refundedMinor: 5000n, refundedAccountMinor: 5000n }, null)).toThrow(expect.objectContaining({ why: 'nothing_left' }));
  // 1 UGX of a 3700 UGX collection that credited 1.00 USD moves no cent
  expect(() => refundAmounts({ requestAmountMinor: 370000n, accountAmountMinor: 100n, refundedMinor: 0n, refundedAccountMinor: 0n }, 100n)).toThrow(expect.objectContaining({ why: 'too_small' }));
  expect(refundAmounts(c, null)).toEqual({ amountMinor: 2000n, accountAmountMinor: 2000n });
});
