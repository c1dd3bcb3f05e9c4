// Disbursements (docs/contract/disbursements.md): the fee, the limits and the approval threshold, the
// state machine, and the ledger postings as balanced sets: a hold of amount + fee when written, then out
// (amount to the processor, fee to revenue) or back, and after COMPLETED a reversal with its own journal.
// Pure: no database, no clock, no randomness.
import type { AccountKey, DisbursementJournalKind, PostingDraft } from './ledger';
import { UnbalancedPostingsError } from './ledger';
import { percentOf } from './money';

/** Disbursements go to a phone or a bank account: only MIDs of these methods may disburse. */
export const DISBURSEMENT_METHODS = ['MOBILE_MONEY', 'BANK'] as const;

export const DISBURSEMENT_STATUSES = ['PENDING_APPROVAL', 'PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'] as const;
export type DisbursementStatus = (typeof DISBURSEMENT_STATUSES)[number];
/** A state the processor's word (or the approval's end) moves a disbursement to. */
export type DisbursementOutcome = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'REVERSED';
export type DisbursementPendingReason = 'awaiting_approval' | 'awaiting_processor' | 'outcome_unknown';

export const DISBURSEMENT_MESSAGES: Record<DisbursementStatus, string> = {
  PENDING_APPROVAL: 'Disbursement waiting for approval',
  PENDING: 'Disbursement accepted; waiting for the processor',
  PROCESSING: 'Disbursement sent to the processor',
  COMPLETED: 'Disbursement completed',
  FAILED: 'Disbursement failed',
  CANCELLED: 'Disbursement cancelled',
  REVERSED: 'Disbursement reversed by the processor',
};

export function isDisbursementMethod(method: string): method is (typeof DISBURSEMENT_METHODS)[number] {
  return (DISBURSEMENT_METHODS as readonly string[]).includes(method);
}

/** No further move but a reversal: COMPLETED may still become REVERSED. */
export function isDisbursementSettled(s: DisbursementStatus): boolean {
  return s === 'COMPLETED' || s === 'FAILED' || s === 'CANCELLED' || s === 'REVERSED';
}

/**
 * PENDING_APPROVAL -> PENDING (approved) | CANCELLED (rejected, timed out);
 * PENDING -> PROCESSING | COMPLETED | FAILED | CANCELLED; PROCESSING -> COMPLETED | FAILED | CANCELLED;
 * COMPLETED -> REVERSED; FAILED, CANCELLED and REVERSED never move.
 */
export function canDisbursementMove(from: DisbursementStatus, to: DisbursementStatus): boolean {
  switch (from) {
    case 'PENDING_APPROVAL':
      return to === 'PENDING' || to === 'CANCELLED';
    case 'PENDING':
      return to === 'PROCESSING' || to === 'COMPLETED' || to === 'FAILED' || to === 'CANCELLED';
    case 'PROCESSING':
      return to === 'COMPLETED' || to === 'FAILED' || to === 'CANCELLED';
    case 'COMPLETED':
      return to === 'REVERSED';
    default:
      return false;
  }
}

/** The states a move to `to` may come from (the guard of the one move statement). */
export function disbursementMovesFrom(to: DisbursementStatus): DisbursementStatus[] {
  return DISBURSEMENT_STATUSES.filter((from) => canDisbursementMove(from, to));
}

export interface DisbursementFeeRule {
  /** NUMERIC text, "1.5" = 1.5 percent */
  percent: string;
  fixedMinor: bigint;
}

/** percent of the amount (rounded half up, as a collection fee) plus fixed, in the wallet's currency. */
export function disbursementFee(amountMinor: bigint, rule: DisbursementFeeRule): bigint {
  return percentOf(amountMinor, rule.percent) + rule.fixedMinor;
}

export interface DisbursementLimits {
  /** at most this much in one disbursement; null = no limit */
  perDisbursementMinor: bigint | null;
  /** at most this much in one UTC day, counting what is not FAILED, CANCELLED or REVERSED; null = no limit */
  dailyMinor: bigint | null;
}

export type LimitRefusal = { limit: 'per_disbursement' | 'daily'; message: string } | null;

/** Which limit a disbursement of `amountMinor` breaks, given what the day's disbursements add up to already. */
export function limitRefusal(amountMinor: bigint, todayMinor: bigint, l: DisbursementLimits): LimitRefusal {
  if (l.perDisbursementMinor !== null && amountMinor > l.perDisbursementMinor) {
    return { limit: 'per_disbursement', message: 'is above the per-disbursement limit of this wallet' };
  }
  if (l.dailyMinor !== null && todayMinor + amountMinor > l.dailyMinor) {
    return { limit: 'daily', message: "would take today's disbursements above the daily limit of this wallet" };
  }
  return null;
}

/** Strictly above the threshold waits for a second person; no threshold, no approval. */
/**
 * A payee's phone or account number as notices and the audit log keep it: its last four characters, the
 * rest masked with '*' as card numbers are ("******6789"; the contract's numbers have at least six). Only
 * the disbursement's own record (its page in the dashboard, the API) shows the whole number.
 */
export function maskedAccountNumber(accountNumber: string): string {
  return `******${accountNumber.slice(-4)}`;
}

export function needsApproval(amountMinor: bigint, thresholdMinor: bigint | null): boolean {
  return thresholdMinor !== null && amountMinor > thresholdMinor;
}

export interface DisbursementMoney {
  walletId: number;
  currency: string;
  amountMinor: bigint;
  feeMinor: bigint;
}

export interface DisbursementJournal {
  kind: DisbursementJournalKind;
  postings: PostingDraft[];
}

const wallet = (d: DisbursementMoney, kind: 'available' | 'disbursement_hold'): AccountKey => ({ kind, walletId: d.walletId, currency: d.currency });
const service = (d: DisbursementMoney, kind: 'processor_clearing' | 'fee_revenue'): AccountKey => ({ kind, walletId: null, currency: d.currency });

function held(d: DisbursementMoney): bigint {
  if (d.amountMinor <= 0n || d.feeMinor < 0n) throw new UnbalancedPostingsError('a disbursement moves a positive amount and no negative fee');
  return d.amountMinor + d.feeMinor;
}

/** What a disbursement takes from available when it is written: the amount and the fee. */
export function disbursementHeldMinor(d: Pick<DisbursementMoney, 'amountMinor' | 'feeMinor'>): bigint {
  return d.amountMinor + d.feeMinor;
}

/** Written with the disbursement: amount + fee, available -> disbursement_hold. */
export function disbursementHoldPlan(d: DisbursementMoney): DisbursementJournal {
  const kind = 'disbursement_hold';
  const total = held(d);
  return { kind, postings: [{ account: wallet(d, 'available'), amountMinor: -total, kind }, { account: wallet(d, 'disbursement_hold'), amountMinor: total, kind }] };
}

/** On COMPLETED: the hold leaves the wallet, the amount to the processor (clearing), the fee to revenue. */
export function disbursementOutPlan(d: DisbursementMoney): DisbursementJournal {
  const kind = 'disbursement_out';
  const postings: PostingDraft[] = [
    { account: wallet(d, 'disbursement_hold'), amountMinor: -held(d), kind },
    { account: service(d, 'processor_clearing'), amountMinor: d.amountMinor, kind },
  ];
  if (d.feeMinor > 0n) postings.push({ account: service(d, 'fee_revenue'), amountMinor: d.feeMinor, kind });
  return { kind, postings };
}

/** On FAILED or CANCELLED: the hold, fee included, back to available. */
export function disbursementReturnPlan(d: DisbursementMoney): DisbursementJournal {
  const kind = 'disbursement_return';
  const total = held(d);
  return { kind, postings: [{ account: wallet(d, 'disbursement_hold'), amountMinor: -total, kind }, { account: wallet(d, 'available'), amountMinor: total, kind }] };
}

/**
 * On REVERSED (after COMPLETED): a new journal, never an edit of the out journal. The processor gives
 * the amount back (clearing) and the fee comes back from revenue: the payee was not paid in the end, so
 * the merchant is charged as for a disbursement that failed (which returns the fee too).
 */
export function disbursementReversalPlan(d: DisbursementMoney): DisbursementJournal {
  const kind = 'disbursement_reversal';
  const postings: PostingDraft[] = [
    { account: service(d, 'processor_clearing'), amountMinor: -d.amountMinor, kind },
    { account: wallet(d, 'available'), amountMinor: held(d), kind },
  ];
  if (d.feeMinor > 0n) postings.splice(1, 0, { account: service(d, 'fee_revenue'), amountMinor: -d.feeMinor, kind });
  return { kind, postings };
}

/** The journal of a move to `to`; null for a move that moves no money (to PENDING, PROCESSING). */
export function disbursementOutcomePlan(to: DisbursementStatus, d: DisbursementMoney): DisbursementJournal | null {
  switch (to) {
    case 'COMPLETED':
      return disbursementOutPlan(d);
    case 'FAILED':
    case 'CANCELLED':
      return disbursementReturnPlan(d);
    case 'REVERSED':
      return disbursementReversalPlan(d);
    default:
      return null;
  }
}
