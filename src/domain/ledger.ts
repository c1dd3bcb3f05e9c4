// Double-entry postings (docs/contract/money.md): what a completion and a release post, as balanced sets.
// Pure: no database, no clock (times are passed in), no randomness. The service writes what these
// functions return, after assertBalanced has accepted it.
import type { PaymentMethod } from './collection';
import { customerPaysMinor } from './fees';
import { percentOf } from './money';
import type { DisputeJournalKind } from './dispute';

export const WALLET_ACCOUNT_KINDS = ['available', 'pending', 'reserved', 'refund_hold', 'disbursement_hold'] as const;
export type WalletAccountKind = (typeof WALLET_ACCOUNT_KINDS)[number];
/** fee_revenue and processor_clearing are the service's own accounts, one per currency; dispute_hold is a wallet's (src/domain/dispute.ts). */
export type AccountKind = WalletAccountKind | 'dispute_hold' | 'fee_revenue' | 'processor_clearing';
export type HoldBucket = 'pending' | 'reserved';
export type JournalKind = 'collection_credit' | 'reserve_release' | 'settlement' | ReconciliationJournalKind | RefundJournalKind | DisbursementJournalKind | DisputeJournalKind;
/**
 * reconciliation_reversal: a payment the processor reversed on its own, taken back from the wallet;
 * reconciliation_adjustment: the difference between what the processor paid and what we credited, moved
 * between the wallet and processor clearing (docs/reconciliation.md)
 */
export type ReconciliationJournalKind = 'reconciliation_reversal' | 'reconciliation_adjustment';
export type PostingKind = 'collection_credit' | 'fee' | 'reserve_hold' | 'reserve_release' | 'settlement' | ReconciliationJournalKind | RefundJournalKind | DisbursementJournalKind | DisputeJournalKind;
/** A refund's journals (src/domain/refund.ts): the hold when it is written, then out or back. */
export type RefundJournalKind = 'refund_hold' | 'refund_out' | 'refund_return';
/** A disbursement's journals (src/domain/disbursement.ts): the hold, then out or back, and a reversal after out. */
export type DisbursementJournalKind = 'disbursement_hold' | 'disbursement_out' | 'disbursement_return' | 'disbursement_reversal';

export interface AccountKey {
  kind: AccountKind;
  /** null for the service accounts */
  walletId: number | null;
  currency: string;
}

export interface PostingDraft {
  account: AccountKey;
  amountMinor: bigint;
  kind: PostingKind;
}

export interface HoldDraft {
  bucket: HoldBucket;
  amountMinor: bigint;
  releaseAt: Date;
}

export interface CompletionInput {
  walletId: number;
  currency: string;
  paymentMethod: PaymentMethod;
  accountAmountMinor: bigint;
  feeMinor: bigint;
  totalCreditMinor: bigint;
  customerCharged: boolean;
  /** the business's rolling_reserve_percent, NUMERIC text */
  reservePercent: string;
  reserveMonths: number;
  cardSettlementDays: number;
  completedAt: Date;
}

export interface CompletionPlan {
  postings: PostingDraft[];
  holds: HoldDraft[];
}

export class UnbalancedPostingsError extends Error {}

export function accountName(a: AccountKey): string {
  return `${a.walletId ?? '-'}:${a.currency}:${a.kind}`;
}

/** Calendar months in UTC, clamped to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonthsUtc(d: Date, months: number): Date {
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  target.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return target;
}

export function addDaysUtc(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

/** The reserve share of a credit: held only when both a percentage and a period are set. */
export function reserveOf(totalCreditMinor: bigint, reservePercent: string, reserveMonths: number): bigint {
  return reserveMonths > 0 ? percentOf(totalCreditMinor, reservePercent) : 0n;
}

/**
 * On COMPLETED: clearing gives what the customer paid (in the wallet currency); the fee goes to
 * revenue; the reserve share to reserved; the rest to available, or to pending for a CARD credit
 * while card settlement runs. Zero amounts are left out (a posting is never 0).
 */
export function completionPlan(i: CompletionInput): CompletionPlan {
  if (i.feeMinor < 0n || i.totalCreditMinor < 0n || i.accountAmountMinor <= 0n) {
    throw new UnbalancedPostingsError('a completion needs a positive amount and no negative fee or credit');
  }
  const wallet = (kind: WalletAccountKind): AccountKey => ({ kind, walletId: i.walletId, currency: i.currency });
  const service = (kind: AccountKind): AccountKey => ({ kind, walletId: null, currency: i.currency });
  const reserved = reserveOf(i.totalCreditMinor, i.reservePercent, i.reserveMonths);
  const rest = i.totalCreditMinor - reserved;
  const settles = i.paymentMethod === 'CARD' && i.cardSettlementDays > 0;
  const paid = customerPaysMinor(i.accountAmountMinor, i.feeMinor, i.customerCharged);
  const all: PostingDraft[] = [
    { account: service('processor_clearing'), amountMinor: -paid, kind: 'collection_credit' },
    { account: service('fee_revenue'), amountMinor: i.feeMinor, kind: 'fee' },
    { account: wallet('reserved'), amountMinor: reserved, kind: 'reserve_hold' },
    { account: wallet(settles ? 'pending' : 'available'), amountMinor: rest, kind: 'collection_credit' },
  ];
  const postings = all.filter((p) => p.amountMinor !== 0n);
  const holds: HoldDraft[] = [];
  if (reserved > 0n) holds.push({ bucket: 'reserved', amountMinor: reserved, releaseAt: addMonthsUtc(i.completedAt, i.reserveMonths) });
  if (settles && rest > 0n) holds.push({ bucket: 'pending', amountMinor: rest, releaseAt: addDaysUtc(i.completedAt, i.cardSettlementDays) });
  return { postings, holds };
}

export interface HoldToRelease {
  walletId: number;
  currency: string;
  bucket: HoldBucket;
  amountMinor: bigint;
}

/** A due hold moves from reserved (reserve release) or pending (card settlement) to available. */
export function releasePlan(h: HoldToRelease): { journalKind: JournalKind; postings: PostingDraft[] } {
  if (h.amountMinor <= 0n) throw new UnbalancedPostingsError('a hold must be positive');
  const kind = h.bucket === 'reserved' ? 'reserve_release' : 'settlement';
  const account = (k: WalletAccountKind): AccountKey => ({ kind: k, walletId: h.walletId, currency: h.currency });
  return {
    journalKind: kind,
    postings: [
      { account: account(h.bucket), amountMinor: -h.amountMinor, kind },
      { account: account('available'), amountMinor: h.amountMinor, kind },
    ],
  };
}

/**
 * A set of postings must be non-empty, have no zero amount, and sum to zero per currency. Anything
 * else is a bug: it stops the request (500) before a row is written.
 */
export function assertBalanced(postings: readonly PostingDraft[]): void {
  if (postings.length < 2) throw new UnbalancedPostingsError('a journal needs at least two postings');
  const sums = new Map<string, bigint>();
  for (const p of postings) {
    if (p.amountMinor === 0n) throw new UnbalancedPostingsError('a posting of zero');
    sums.set(p.account.currency, (sums.get(p.account.currency) ?? 0n) + p.amountMinor);
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new UnbalancedPostingsError(`postings do not balance in ${currency}: off by ${sum} minor units`);
  }
}

export interface WalletParts {
  availableMinor: bigint;
  pendingMinor: bigint;
  reservedMinor: bigint;
  /** held for refunds under way (docs/contract/refunds.md) */
  refundHeldMinor: bigint;
  /** held for disbursements under way, amount and fee (docs/contract/disbursements.md) */
  disbursementHeldMinor: bigint;
}

/** balance = available + pending + reserved + held for refunds and disbursements (docs/contract/money.md). */
export function walletTotal(w: WalletParts): bigint {
  return w.availableMinor + w.pendingMinor + w.reservedMinor + w.refundHeldMinor + w.disbursementHeldMinor;
}

/** Sum of postings per account: the balance of every account is exactly this. */
export function sumByAccount(postings: readonly PostingDraft[]): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const p of postings) sums.set(accountName(p.account), (sums.get(accountName(p.account)) ?? 0n) + p.amountMinor);
  return sums;
}
