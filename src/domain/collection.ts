// The collection and its state machine: PENDING -> COMPLETED | FAILED | CANCELLED | EXPIRED, the last
// four final; COMPLETED -> REVERSED only when an operator resolves a reversal the processor made on its own
// (docs/reconciliation.md). Pure: no database, no clock.
export const PAYMENT_METHODS = ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED', 'REVERSED'] as const;
export type Status = (typeof STATUSES)[number];
export type FinalStatus = Exclude<Status, 'PENDING'>;

export function isFinal(s: Status): s is FinalStatus {
  return s !== 'PENDING';
}

/** A PENDING collection moves to a final state; a COMPLETED one only to REVERSED (a reconciliation's resolution). */
export function canTransition(from: Status, to: Status): boolean {
  if (from === 'COMPLETED') return to === 'REVERSED';
  return from === 'PENDING' && isFinal(to);
}

export const STATUS_MESSAGES: Record<Status, string> = {
  PENDING: 'Awaiting payment by the customer',
  COMPLETED: 'Payment completed',
  FAILED: 'Payment failed',
  CANCELLED: 'Payment cancelled by the customer',
  EXPIRED: 'Payment not completed in time',
  REVERSED: 'Payment reversed by the processor',
};

export interface Instruction {
  step: string;
  description: string;
}

/** Why a MID was passed over (the first five) or not chosen among its equals (the last two). */
export type RoutingReason = 'inactive' | 'payment_method' | 'currency' | 'allowed_traffic' | 'first_time_depositor' | 'lower_priority' | 'round_robin';

export interface RoutingCandidate {
  mid_id: number;
  processing_rank: number;
  chosen: boolean;
  reason: RoutingReason | null;
}

export interface RoutingDecision {
  mid_id: number | null;
  processing_rank: number | null;
  candidates: RoutingCandidate[];
}

/** A collections row as pg-promise reads it (BIGINT -> bigint, NUMERIC -> string). */
export interface CollectionRow {
  id: bigint;
  business_id: number;
  api_token_id: number | null;
  gateway_reference: string;
  merchant_reference: string;
  request_hash: string;
  payment_method: PaymentMethod;
  status: Status;
  message: string;
  request_amount_minor: bigint;
  request_currency: string;
  account_amount_minor: bigint;
  account_currency: string;
  fx_rate: string | null;
  /** the market rate before the business's markup, applied - reference, its source and as_of; null when no conversion */
  fx_reference_rate: string | null;
  fx_markup: string | null;
  fx_source: string | null;
  fx_as_of: Date | null;
  fee_minor: bigint;
  total_credit_minor: bigint;
  customer_charged: boolean;
  account_number: string | null;
  account_name: string | null;
  account_email: string | null;
  narration: string;
  redirect_url: string | null;
  institution_name: string | null;
  payment_url: string | null;
  instructions: Instruction[] | null;
  mid_id: number | null;
  routing: RoutingDecision;
  card_masked: string | null;
  card_fingerprint: string | null;
  page_token: string | null;
  notification_seq: number;
  expires_at: Date;
  /** when a processor confirmed payment after the collection had EXPIRED (EXPIRED -> COMPLETED) */
  late_completed_at: Date | null;
  /** the request-currency sum of its refunds that are not FAILED or CANCELLED (docs/contract/refunds.md) */
  refunded_minor: bigint;
  created_at: Date;
  updated_at: Date;
}
