// What one status query means for a collection and its processor request: a pure decision from the
// request's state, the collection's state and deadline, and the processor's answer. The collections'
// adapter of the engine (charges.ts) carries the decision out.
import type { Status } from '../domain/collection';
import type { QueryResult } from '../processors/types';

export interface CheckInput {
  state: 'sent' | 'unknown' | 'settled';
  collectionStatus: Status;
  expiresAt: Date;
  /** status queries made so far, this one included */
  checks: number;
  now: Date;
  result: QueryResult;
  /** what we asked the processor to charge */
  amountMinor: bigint;
  currency: string;
  /** what a callback said was paid, when the query does not say */
  reported: { amountMinor: bigint | null; currency: string | null };
  checkScheduleMs: number[];
  lateCheckMs: number;
  /**
   * A decline is not the end of this payment: the customer can try again on the same checkout (Paystack's
   * "Try again"), so it stays PENDING and our own expiry ends it. False for a direct card, which is never kept.
   */
  retryableDecline: boolean;
}

export type CheckAction =
  /** the processor confirms payment: credit (from PENDING, or from EXPIRED as a late completion) */
  | { do: 'complete'; from: 'PENDING' | 'EXPIRED' }
  | { do: 'fail'; status: 'FAILED' | 'CANCELLED'; message: string }
  /**
   * never credited, kept for the operator: paid, but not what we asked; or paid after the collection was
   * already FAILED or CANCELLED (a final word the merchant was told), which only an operator may undo
   */
  | { do: 'hold'; reason: string }
  /**
   * the deadline passed and the processor, asked once more, did not confirm: EXPIRED, then keep asking for a
   * late success; `message` (for the merchant) says why when the customer's last attempt was declined
   */
  | { do: 'expire'; nextCheckAt: Date | null; note: string | null; message?: string }
  | { do: 'wait'; nextCheckAt: Date | null; note: string | null }
  /** a final answer that changes nothing (the collection is already final) */
  | { do: 'settle' };

/** The request's note (last_error) while the customer's last attempt stands declined, before the processor's words. */
export const DECLINED_NOTE = 'declined, the customer may try again: ';

function at(now: Date, ms: number): Date {
  return new Date(now.getTime() + ms);
}

/** When to ask next: on the schedule while PENDING (never past the deadline), then for a late success. */
export function nextCheckAt(i: Pick<CheckInput, 'collectionStatus' | 'expiresAt' | 'checks' | 'now' | 'checkScheduleMs' | 'lateCheckMs'>): Date | null {
  const schedule = i.checkScheduleMs;
  const step = schedule[Math.min(i.checks, schedule.length - 1)];
  if (i.collectionStatus === 'PENDING' && i.now < i.expiresAt) {
    const next = at(i.now, step);
    return next < i.expiresAt ? next : i.expiresAt;
  }
  const next = at(i.now, schedule[schedule.length - 1]);
  return next.getTime() <= i.expiresAt.getTime() + i.lateCheckMs ? next : null;
}

/** A confirmed amount or currency that differs from ours, in words; null when they agree or are not said. */
export function mismatch(i: CheckInput, amountMinor: bigint | null, currency: string | null): string | null {
  const amount = amountMinor ?? i.reported.amountMinor;
  const cur = currency ?? i.reported.currency;
  if (amount !== null && amount !== i.amountMinor) return `the processor confirmed ${amount} minor units, we asked for ${i.amountMinor}`;
  if (cur !== null && cur !== i.currency) return `the processor confirmed ${cur}, we asked for ${i.currency}`;
  return null;
}

/** Why a success is held when the collection is already final (FAILED or CANCELLED): the merchant was told otherwise. */
export function lateSuccessReason(status: Status): string {
  return `the processor confirmed payment of a collection already ${status}`;
}

export function decide(i: CheckInput): CheckAction {
  const pending = i.collectionStatus === 'PENDING';
  const pastDeadline = pending && i.now >= i.expiresAt;
  const later = (note: string | null, message?: string): CheckAction =>
    pastDeadline
      ? { do: 'expire', nextCheckAt: nextCheckAt({ ...i, collectionStatus: 'EXPIRED' }), note, ...(message ? { message } : {}) }
      : { do: 'wait', nextCheckAt: nextCheckAt(i), note };
  const r = i.result;
  if (r.kind === 'unavailable') return later(r.detail);
  // (a request of unknown outcome the processor does not know is sent again by the engine before this is asked)
  if (r.kind === 'not_found') return later('the processor does not know the request');
  const o = r.observed;
  if (o.status === 'PENDING') return later(o.unmapped ? `unknown processor status ${o.vendorStatus}` : null);
  if (o.status === 'COMPLETED') {
    const wrong = mismatch(i, o.amountMinor, o.currency);
    if (wrong) return { do: 'hold', reason: wrong };
    if (pending) return { do: 'complete', from: 'PENDING' };
    if (i.collectionStatus === 'EXPIRED') return { do: 'complete', from: 'EXPIRED' };
    if (i.collectionStatus === 'COMPLETED') return { do: 'settle' };
    return { do: 'hold', reason: lateSuccessReason(i.collectionStatus) };
  }
  if (!pending) return { do: 'settle' };
  const message = o.message ?? 'Payment failed';
  if (o.status === 'FAILED' && i.retryableDecline) return later(`${DECLINED_NOTE}${message}`, `Payment not completed in time (last attempt: ${message})`);
  return { do: 'fail', status: o.status, message };
}
