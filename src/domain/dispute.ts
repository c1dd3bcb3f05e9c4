// Card disputes (docs/contract/disputes.md): the response deadline by the processor's rule for the
// integration's country, what a processor's dispute says in our words, and the ledger's journals of a
// dispute's life. Pure: no database, no clock (times are passed in).
import type { AccountKey, PostingDraft } from './ledger';

export const DISPUTE_STAGES = ['chargeback', 'fraud', 'pre-arbitration', 'arbitration'] as const;
export type DisputeStage = (typeof DISPUTE_STAGES)[number];
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost', 'accepted'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export type DisputeJournalKind = 'dispute_hold' | 'dispute_release' | 'dispute_debit';

export const DISPUTE_CLOSED: readonly DisputeStatus[] = ['won', 'lost', 'accepted'];

export function isDisputeClosed(s: DisputeStatus): boolean {
  return DISPUTE_CLOSED.includes(s);
}

/**
 * Paystack's response windows, as Paystack states them for its integrations: 16 hours for a
 * Nigerian integration, 48 for Ghana, South Africa and Kenya, counted in the country's own time with the
 * clock paused from Friday 23:59 to Monday 00:00. None of the four keeps daylight saving, so each is
 * a fixed offset from UTC (Africa/Lagos +1, Africa/Accra 0, Africa/Johannesburg +2, Africa/Nairobi +3).
 */
export const DISPUTE_WINDOWS: Readonly<Record<string, { hours: number; utcOffsetHours: number }>> = {
  NG: { hours: 16, utcOffsetHours: 1 },
  GH: { hours: 48, utcOffsetHours: 0 },
  ZA: { hours: 48, utcOffsetHours: 2 },
  KE: { hours: 48, utcOffsetHours: 3 },
};

/** The country of a Paystack integration, read from its currency (an integration settles in its country's). */
export const COUNTRY_OF_CURRENCY: Readonly<Record<string, string>> = { NGN: 'NG', GHS: 'GH', ZAR: 'ZA', KES: 'KE' };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Friday 23:59 as minutes into a local week that starts on Monday 00:00. */
const PAUSE_START_MS = (4 * 24 * 60 + 23 * 60 + 59) * 60_000;
const WEEK = 7 * DAY;

/** Milliseconds since the local Monday 00:00 of the week holding `localMs` (1970-01-05 was a Monday). */
function intoWeek(localMs: number): number {
  const mondayEpoch = 4 * DAY;
  return (((localMs - mondayEpoch) % WEEK) + WEEK) % WEEK;
}

/**
 * When the merchant's answer is due: `hours` of running clock from `openedAt` in the country's local
 * time, not counting Friday 23:59 to Monday 00:00. A dispute opened inside the pause starts counting on
 * Monday 00:00. A country without a rule takes Nigeria's (the shortest: never a deadline later than the
 * processor's).
 */
export function disputeDeadline(openedAt: Date, country: string): Date {
  const rule = DISPUTE_WINDOWS[country] ?? DISPUTE_WINDOWS.NG;
  const offset = rule.utcOffsetHours * HOUR;
  let local = openedAt.getTime() + offset;
  let left = rule.hours * HOUR;
  // each turn ends a week's running time or the count: bounded by the window's weeks plus one
  for (let turn = 0; turn < 10; turn++) {
    const at = intoWeek(local);
    if (at >= PAUSE_START_MS) {
      local += WEEK - at;
      continue;
    }
    const untilPause = PAUSE_START_MS - at;
    if (left <= untilPause) return new Date(local + left - offset);
    left -= untilPause;
    local += untilPause;
  }
  throw new Error('a dispute window longer than ten weeks');
}

/** A processor's dispute, read by its connector into our words (src/processors/paystack/dispute-transformers.ts). */
/** The merchant's evidence on a dispute it declines (Paystack's evidence fields; delivery_date YYYY-MM-DD). */
export interface DisputeEvidence {
  customer_email: string;
  customer_name: string;
  customer_phone: string;
  service_details: string;
  delivery_address?: string;
  delivery_date?: string;
}

/** A file sent with the evidence, or the merchant's message as text when none is given. */
export interface DisputeFile {
  name: string;
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
}

export interface ObservedDispute {
  processorDisputeId: string;
  /** the processor's reference of the disputed payment */
  transactionReference: string;
  stage: DisputeStage;
  status: DisputeStatus;
  processorStatus: string;
  reason: string | null;
  amountMinor: bigint;
  currency: string;
  /** what the merchant loses when lost or accepted: the disputed amount, or a partial acceptance's */
  debitMinor: bigint;
  resolution: string | null;
  openedAt: Date;
}

/** A wallet's side of a dispute. */
export interface DisputeMoney {
  walletId: number;
  currency: string;
  heldMinor: bigint;
}

const wallet = (m: DisputeMoney, kind: 'available' | 'dispute_hold'): AccountKey => ({ kind, walletId: m.walletId, currency: m.currency });

/** On opening: the disputed amount from available (which may go below zero) to the dispute hold. */
export function disputeHoldPlan(m: DisputeMoney): { kind: DisputeJournalKind; postings: PostingDraft[] } {
  return {
    kind: 'dispute_hold',
    postings: [
      { account: wallet(m, 'available'), amountMinor: -m.heldMinor, kind: 'dispute_hold' },
      { account: wallet(m, 'dispute_hold'), amountMinor: m.heldMinor, kind: 'dispute_hold' },
    ],
  };
}

/**
 * On closing: won releases the hold to available; lost or accepted pays `debitMinor` (at most the hold)
 * back to the processor, which takes it from settlement, and releases the rest (a partial acceptance).
 */
export function disputeOutcomePlan(m: DisputeMoney, outcome: 'won' | 'lost' | 'accepted', debitMinor: bigint): { kind: DisputeJournalKind; postings: PostingDraft[] } {
  const debit = outcome === 'won' ? 0n : debitMinor > m.heldMinor ? m.heldMinor : debitMinor < 0n ? 0n : debitMinor;
  const rest = m.heldMinor - debit;
  const clearing: AccountKey = { kind: 'processor_clearing', walletId: null, currency: m.currency };
  const all: PostingDraft[] = [
    { account: wallet(m, 'dispute_hold'), amountMinor: -m.heldMinor, kind: debit > 0n ? 'dispute_debit' : 'dispute_release' },
    { account: clearing, amountMinor: debit, kind: 'dispute_debit' },
    { account: wallet(m, 'available'), amountMinor: rest, kind: 'dispute_release' },
  ];
  return { kind: debit > 0n ? 'dispute_debit' : 'dispute_release', postings: all.filter((p) => p.amountMinor !== 0n) };
}

/** An amount in the processor's currency as the wallet's share of it: the collection's own ratio, rounded down. */
export function inWalletCurrency(amountMinor: bigint, paidMinor: bigint, creditedMinor: bigint): bigint {
  if (paidMinor <= 0n) return amountMinor;
  return (amountMinor * creditedMinor) / paidMinor;
}
