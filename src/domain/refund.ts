// Refunds (docs/contract/refunds.md): what is still refundable, what a refund takes from the wallet, the
// refund's state machine, and its ledger postings as balanced sets (a hold when written, then out or
// back). Pure: no database, no clock, no randomness.
import type { AccountKey, PostingDraft, RefundJournalKind } from './ledger';
import { UnbalancedPostingsError } from './ledger';

export const REFUND_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export type RefundFinal = 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type PendingReason = 'awaiting_processor' | 'outcome_unknown';

export const REFUND_MESSAGES: Record<RefundStatus, string> = {
  PENDING: 'Refund accepted; waiting for the processor',
  PROCESSING: 'Refund sent to the processor',
  COMPLETED: 'Refund completed',
  FAILED: 'Refund failed',
  CANCELLED: 'Refund cancelled',
};

export function isRefundFinal(s: RefundStatus): s is RefundFinal {
  return s === 'COMPLETED' || s === 'FAILED' || s === 'CANCELLED';
}

/** PENDING -> PROCESSING | final; PROCESSING -> final; a final state never moves. */
export function canRefundMove(from: RefundStatus, to: RefundStatus): boolean {
  if (from === 'PENDING') return to !== 'PENDING';
  if (from === 'PROCESSING') return isRefundFinal(to);
  return false;
}

/** The states a refund may move to `to` from: the one guard of its move (a repeat or a late report finds none). */
export function refundMovesFrom(to: RefundStatus): RefundStatus[] {
  return REFUND_STATUSES.filter((from) => canRefundMove(from, to));
}

/** The refunds of a collection that still count against what was paid. */
export function countsAgainstPaid(s: RefundStatus): boolean {
  return s !== 'FAILED' && s !== 'CANCELLED';
}

export class RefundRefused extends Error {
  constructor(
    readonly why: 'nothing_left' | 'over_refund' | 'not_positive' | 'too_small',
    message: string,
  ) {
    super(message);
  }
}

export interface PaidCollection {
  /** what the customer was asked for, in the request currency */
  requestAmountMinor: bigint;
  /** the request amount in the wallet currency (the collection's own conversion) */
  accountAmountMinor: bigint;
  /** what its refunds that count against it add up to already */
  refundedMinor: bigint;
  /** what those same refunds take from the wallet, in its currency */
  refundedAccountMinor: bigint;
}

export interface RefundAmounts {
  amountMinor: bigint;
  /** what the wallet gives, in its currency */
  accountAmountMinor: bigint;
}

/**
 * The refund of `requested` (null: the whole rest) of `c`, or RefundRefused. The wallet debit is the
 * collection's conversion of the refunded total after this refund, rounded down, less what the refunds
 * that still count took already: whatever failed or was cancelled in between, the refunds that add up to
 * the whole take account_amount exactly. Rounding down, the total never reaches account_amount before the
 * whole is refunded, so the refund that completes it always moves at least one minor unit; a partial
 * refund too small to move one is refused ('too_small').
 */
export function refundAmounts(c: PaidCollection, requested: bigint | null): RefundAmounts {
  const rest = c.requestAmountMinor - c.refundedMinor;
  if (rest <= 0n) throw new RefundRefused('nothing_left', 'the collection has been refunded in full already');
  const amountMinor = requested ?? rest;
  if (amountMinor <= 0n) throw new RefundRefused('not_positive', 'must be greater than 0');
  if (amountMinor > rest) throw new RefundRefused('over_refund', `at most ${rest} minor units are still refundable`);
  // both factors are positive, so bigint division rounds down
  const converted = (refunded: bigint) => (c.accountAmountMinor * refunded) / c.requestAmountMinor;
  const accountAmountMinor = converted(c.refundedMinor + amountMinor) - c.refundedAccountMinor;
  if (accountAmountMinor <= 0n) throw new RefundRefused('too_small', `is too small to move anything in the wallet's currency; refund more, or the whole rest`);
  return { amountMinor, accountAmountMinor };
}

export interface RefundMoney {
  walletId: number;
  /** the wallet currency */
  currency: string;
  accountAmountMinor: bigint;
}

export interface RefundJournal {
  kind: RefundJournalKind;
  postings: PostingDraft[];
}

function move(r: RefundMoney, kind: RefundJournalKind, from: AccountKey, to: AccountKey): RefundJournal {
  if (r.accountAmountMinor <= 0n) throw new UnbalancedPostingsError('a refund moves a positive amount');
  return {
    kind,
    postings: [
      { account: from, amountMinor: -r.accountAmountMinor, kind },
      { account: to, amountMinor: r.accountAmountMinor, kind },
    ],
  };
}

const wallet = (r: RefundMoney, kind: 'available' | 'refund_hold'): AccountKey => ({ kind, walletId: r.walletId, currency: r.currency });
const clearing = (r: RefundMoney): AccountKey => ({ kind: 'processor_clearing', walletId: null, currency: r.currency });

/** Written with the refund: available -> refund_hold. */
export function refundHoldPlan(r: RefundMoney): RefundJournal {
  return move(r, 'refund_hold', wallet(r, 'available'), wallet(r, 'refund_hold'));
}

/** On COMPLETED: the hold leaves the wallet through the processor (clearing). */
export function refundOutPlan(r: RefundMoney): RefundJournal {
  return move(r, 'refund_out', wallet(r, 'refund_hold'), clearing(r));
}

/** On FAILED or CANCELLED: a reversing journal, refund_hold -> available. */
export function refundReturnPlan(r: RefundMoney): RefundJournal {
  return move(r, 'refund_return', wallet(r, 'refund_hold'), wallet(r, 'available'));
}

/** The outcome journal of a move to a final state. */
export function refundOutcomePlan(to: RefundFinal, r: RefundMoney): RefundJournal {
  return to === 'COMPLETED' ? refundOutPlan(r) : refundReturnPlan(r);
}

/** Whether the wallet's available balance (summed over its slots, under the wallet's lock) pays for the refund. */
export function availableCovers(availableMinor: bigint, accountAmountMinor: bigint): boolean {
  return availableMinor >= accountAmountMinor;
}
