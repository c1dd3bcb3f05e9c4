// Proves the disbursement domain: the fee, limits and approval threshold at their edges, the state machine, every journal balancing with the amounts of docs/contract/disbursements.md, and with random sequences of disbursements and outcomes that a wallet's available never goes below zero, the hold is empty once all are settled, and the merchant ends up charged amount + fee exactly for what stayed COMPLETED.
import fc from 'fast-check';
import {
  canDisbursementMove,
  DISBURSEMENT_STATUSES,
  disbursementFee,
  disbursementHeldMinor,
  disbursementHoldPlan,
  disbursementMovesFrom,
  disbursementOutcomePlan,
  isDisbursementSettled,
  limitRefusal,
  needsApproval,
} from '../../src/domain/disbursement';
import type { DisbursementStatus } from '../../src/domain/disbursement';
import { accountName, assertBalanced, sumByAccount, UnbalancedPostingsError } from '../../src/domain/ledger';
import type { PostingDraft } from '../../src/domain/ledger';

const D = { walletId: 7, currency: 'UGX', amountMinor: 100_000n, feeMinor: 1_500n };
const key = (kind: string, walletId: number | null = 7) => accountName({ kind: kind as 'available', walletId, currency: 'UGX' });
const sums = (...plans: { postings: PostingDraft[] }[]) => Object.fromEntries(sumByAccount(plans.flatMap((p) => p.postings)));

describe('fee, limits, approval', () => {
  it.each([
    ['0', 0n, 100_000n, 0n],
    ['1.5', 0n, 100_000n, 1_500n],
    ['1.5', 500n, 100_000n, 2_000n],
    ['2.5', 0n, 1n, 0n],
    ['2.5', 0n, 20n, 1n],
  ])('%s%% + %s of %s is %s', (percent, fixedMinor, amount, fee) => {
    expect(disbursementFee(amount, { percent, fixedMinor })).toBe(fee);
  });

  it('refuses above the per-disbursement limit, and above the daily limit counting the day so far', () => {
    const l = { perDisbursementMinor: 1_000n, dailyMinor: 2_500n };
    expect(limitRefusal(1_000n, 0n, l)).toBeNull();
    expect(limitRefusal(1_001n, 0n, l)).toMatchObject({ limit: 'per_disbursement' });
    expect(limitRefusal(1_000n, 1_500n, l)).toBeNull();
    expect(limitRefusal(1_000n, 1_501n, l)).toMatchObject({ limit: 'daily' });
    expect(limitRefusal(10n ** 15n, 10n ** 15n, { perDisbursementMinor: null, dailyMinor: null })).toBeNull();
  });

  it('waits for approval strictly above the threshold, never without one', () => {
    expect(needsApproval(1_000n, 1_000n)).toBe(false);
    expect(needsApproval(1_001n, 1_000n)).toBe(true);
    expect(needsApproval(1n, 0n)).toBe(true);
    expect(needsApproval(10n ** 15n, null)).toBe(false);
  });
});

describe('state machine', () => {
  it('allows exactly the moves of the contract', () => {
    const allowed = DISBURSEMENT_STATUSES.flatMap((from) => DISBURSEMENT_STATUSES.filter((to) => canDisbursementMove(from, to)).map((to) => `${from}>${to}`));
    expect(allowed.sort()).toEqual([
      'COMPLETED>REVERSED',
      'PENDING>CANCELLED', 'PENDING>COMPLETED', 'PENDING>FAILED', 'PENDING>PROCESSING',
      'PENDING_APPROVAL>CANCELLED', 'PENDING_APPROVAL>PENDING',
      'PROCESSING>CANCELLED', 'PROCESSING>COMPLETED', 'PROCESSING>FAILED',
    ]);
    expect(disbursementMovesFrom('CANCELLED').sort()).toEqual(['PENDING', 'PENDING_APPROVAL', 'PROCESSING']);
    expect(disbursementMovesFrom('REVERSED')).toEqual(['COMPLETED']);
    expect(DISBURSEMENT_STATUSES.filter(isDisbursementSettled)).toEqual(['COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED']);
  });
});

describe('journals', () => {
  it('holds amount + fee from available', () => {
    const hold = disbursementHoldPlan(D);
    assertBalanced(hold.postings);
    expect(hold.kind).toBe('disbursement_hold');
    expect(sums(hold)).toEqual({ [key('available')]: -101_500n, [key('disbursement_hold')]: 101_500n });
    expect(disbursementHeldMinor(D)).toBe(101_500n);
  });

  it('on COMPLETED pays the amount out through clearing and the fee to revenue', () => {
    const out = disbursementOutcomePlan('COMPLETED', D)!;
    assertBalanced(out.postings);
    expect(out.kind).toBe('disbursement_out');
    expect(sums(disbursementHoldPlan(D), out)).toEqual({
      [key('available')]: -101_500n, [key('disbursement_hold')]: 0n, [key('processor_clearing', null)]: 100_000n, [key('fee_revenue', null)]: 1_500n,
    });
  });

  it.each(['FAILED', 'CANCELLED'] as const)('on %s returns the whole hold, fee included', (to) => {
    const back = disbursementOutcomePlan(to, D)!;
    assertBalanced(back.postings);
    expect(back.kind).toBe('disbursement_return');
    expect(sums(disbursementHoldPlan(D), back)).toEqual({ [key('available')]: 0n, [key('disbursement_hold')]: 0n });
  });

  it('on REVERSED credits amount + fee back with its own journal, taking the fee back from revenue', () => {
    const rev = disbursementOutcomePlan('REVERSED', D)!;
    assertBalanced(rev.postings);
    expect(rev.kind).toBe('disbursement_reversal');
    expect(sums(disbursementHoldPlan(D), disbursementOutcomePlan('COMPLETED', D)!, rev)).toEqual({
      [key('available')]: 0n, [key('disbursement_hold')]: 0n, [key('processor_clearing', null)]: 0n, [key('fee_revenue', null)]: 0n,
    });
  });

  it('leaves out a zero fee, moves no money to PENDING or PROCESSING, and refuses a zero amount or a negative fee', () => {
    const free = { ...D, feeMinor: 0n };
    expect(disbursementOutcomePlan('COMPLETED', free)!.postings).toHaveLength(2);
    expect(disbursementOutcomePlan('REVERSED', free)!.postings).toHaveLength(2);
    expect(disbursementOutcomePlan('PENDING', D)).toBeNull();
    expect(disbursementOutcomePlan('PROCESSING', D)).toBeNull();
    expect(() => disbursementHoldPlan({ ...D, amountMinor: 0n })).toThrow(UnbalancedPostingsError);
    expect(() => disbursementHoldPlan({ ...D, feeMinor: -1n })).toThrow(UnbalancedPostingsError);
  });
});

describe('random disbursements against one wallet', () => {
  type Step = { kind: 'create'; amount: bigint; fee: bigint } | { kind: 'move'; which: number; to: DisbursementStatus };
  const step = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), amount: fc.bigInt(1n, 60_000n), fee: fc.bigInt(0n, 2_000n) }),
    fc.record({ kind: fc.constant('move' as const), which: fc.nat(30), to: fc.constantFrom(...DISBURSEMENT_STATUSES) }),
  );

  it('keeps available at or above zero, empties the hold once settled, and charges exactly what stayed COMPLETED', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 200_000n), fc.array(step, { maxLength: 60 }), (opening, steps: Step[]) => {
        const postings: PostingDraft[] = [];
        const made: { status: DisbursementStatus; amountMinor: bigint; feeMinor: bigint }[] = [];
        const balance = (kind: string) => sumByAccount(postings).get(key(kind)) ?? 0n;
        for (const s of steps) {
          if (s.kind === 'create') {
            // what the service checks under the wallet's lock
            if (opening + balance('available') < s.amount + s.fee) continue;
            const hold = disbursementHoldPlan({ ...D, amountMinor: s.amount, feeMinor: s.fee });
            assertBalanced(hold.postings);
            postings.push(...hold.postings);
            made.push({ status: 'PENDING', amountMinor: s.amount, feeMinor: s.fee });
          } else {
            const d = made[s.which % Math.max(1, made.length)];
            if (!d || !canDisbursementMove(d.status, s.to)) continue;
            const plan = disbursementOutcomePlan(s.to, { ...D, ...d });
            if (plan) {
              assertBalanced(plan.postings);
              postings.push(...plan.postings);
            }
            d.status = s.to;
          }
          expect(opening + balance('available')).toBeGreaterThanOrEqual(0n);
          expect(balance('disbursement_hold')).toBeGreaterThanOrEqual(0n);
        }
        const open = made.filter((d) => !isDisbursementSettled(d.status));
        expect(balance('disbursement_hold')).toBe(open.reduce((a, d) => a + d.amountMinor + d.feeMinor, 0n));
        const charged = made.filter((d) => d.status === 'COMPLETED').reduce((a, d) => a + d.amountMinor + d.feeMinor, 0n);
        expect(-balance('available') - balance('disbursement_hold')).toBe(charged);
      }),
    );
  });
});
