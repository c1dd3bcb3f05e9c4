// The refund record of the API (docs/contract/refunds.md), made from a row; notifications use the same
// record plus `sequence`, and a single collection read shows each of its refunds in short. Rows meet
// contract types here only.
import type { components as AdminComponents } from '../../generated/admin-api';
import type { components } from '../../generated/merchant-api';
import { toApi } from '../domain/money';
import type { PendingReason, RefundStatus } from '../domain/refund';
import { apiTime } from '../domain/time';

/** A refunds row as read with its collection's gateway_reference (BIGINT -> bigint). */
export interface RefundRow {
  id: bigint;
  business_id: number;
  api_token_id: number | null;
  collection_id: bigint;
  collection_gateway_reference: string;
  wallet_id: number;
  gateway_reference: string;
  merchant_reference: string;
  request_hash: string;
  amount_minor: bigint;
  currency: string;
  account_amount_minor: bigint;
  account_currency: string;
  status: RefundStatus;
  pending_reason: PendingReason | null;
  failure_reason: string | null;
  reason: string | null;
  message: string;
  claim_url: string | null;
  notification_seq: number;
  service_type: string;
  mid_id: number | null;
  reference: string;
  callback_token: string;
  vendor_reference: string | null;
  send_state: 'queued' | 'sending' | 'sent' | 'unknown' | 'held' | 'settled';
  /** why an operator must decide (send_state 'held') */
  held_reason: string | null;
  /** an operator's decision on it once held: why, who, when (its outcome is the refund's status) */
  resolution_note: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  send_attempts: number;
  next_send_at: Date | null;
  checks: number;
  next_check_at: Date | null;
  last_error: string | null;
  /** the processor's ids of our queries about the refunded payment (M-Pesa's receipt check) */
  original_query_references: string[];
  /** when the processor's answer about the refunded payment matched the collection */
  original_confirmed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type RefundRecord = components['schemas']['RefundRecord'];
export type RefundSummary = components['schemas']['RefundSummary'];

export function toRefundRecord(r: RefundRow): RefundRecord {
  return {
    id: r.id.toString(),
    gateway_reference: r.gateway_reference,
    collection_gateway_reference: r.collection_gateway_reference,
    merchant_reference: r.merchant_reference,
    amount: toApi(r.amount_minor),
    currency: r.currency,
    account_amount: toApi(r.account_amount_minor),
    account_currency: r.account_currency,
    transaction_status: r.status,
    transaction_type: 'refund',
    pending_reason: r.pending_reason,
    failure_reason: r.failure_reason,
    reason: r.reason,
    message: r.message,
    claim_url: r.claim_url,
    created_at: apiTime(r.created_at),
    updated_at: apiTime(r.updated_at),
  };
}

export type AdminRefundRecord = AdminComponents['schemas']['AdminRefundRecord'];

/**
 * A refund as the operator API shows it: the record, why it is held for an operator and their decision.
 * `operator` false (a merchant's own people): those two are null, as the processor side of a collection is.
 */
export function toAdminRefundRecord(r: RefundRow, operator: boolean): AdminRefundRecord {
  const decided = operator && r.resolved_at !== null && (r.status === 'COMPLETED' || r.status === 'FAILED');
  return {
    ...toRefundRecord(r),
    held_reason: operator ? r.held_reason : null,
    resolution: decided ? { outcome: r.status as 'COMPLETED' | 'FAILED', note: r.resolution_note ?? '', resolved_by: r.resolved_by ?? '', resolved_at: apiTime(r.resolved_at!) } : null,
  };
}

/** A refund in short, as a single collection read lists its refunds. */
export function toRefundSummary(r: RefundRow): RefundSummary {
  return { gateway_reference: r.gateway_reference, merchant_reference: r.merchant_reference, amount: toApi(r.amount_minor), transaction_status: r.status };
}
