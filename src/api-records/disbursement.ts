// The disbursement record of the API (docs/contract/disbursements.md), made from a row; notifications use
// the same record plus `sequence`. Rows meet contract types here only.
import type { components } from '../../generated/merchant-api';
import type { DisbursementPendingReason, DisbursementStatus } from '../domain/disbursement';
import { toApi } from '../domain/money';
import { apiTime } from '../domain/time';

/** A disbursements row (BIGINT -> bigint). */
export interface DisbursementRow {
  id: bigint;
  business_id: number;
  api_token_id: number | null;
  wallet_id: number;
  gateway_reference: string;
  merchant_reference: string;
  request_hash: string;
  amount_minor: bigint;
  fee_minor: bigint;
  currency: string;
  payment_method: 'MOBILE_MONEY' | 'BANK';
  account_number: string;
  bank_code: string | null;
  account_name: string;
  narration: string | null;
  status: DisbursementStatus;
  pending_reason: DisbursementPendingReason | null;
  failure_reason: string | null;
  message: string;
  notification_seq: number;
  requested_by_user_id: number | null;
  /** who held the secret of the API token that asked for it (created or last regenerated it), at the time */
  token_holder_user_id: number | null;
  decided_by_user_id: number | null;
  decided_at: Date | null;
  approval_expires_at: Date | null;
  service_type: string;
  mid_id: number | null;
  reference: string;
  callback_token: string;
  vendor_reference: string | null;
  send_state: 'held' | 'queued' | 'sending' | 'sent' | 'unknown' | 'settled';
  send_attempts: number;
  next_send_at: Date | null;
  checks: number;
  next_check_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export type DisbursementRecord = components['schemas']['DisbursementRecord'];

export function toDisbursementRecord(d: DisbursementRow): DisbursementRecord {
  return {
    id: d.id.toString(),
    gateway_reference: d.gateway_reference,
    merchant_reference: d.merchant_reference,
    amount: toApi(d.amount_minor),
    fee: toApi(d.fee_minor),
    currency: d.currency,
    payment_method: d.payment_method,
    account_number: d.account_number,
    bank_code: d.bank_code,
    account_name: d.account_name,
    narration: d.narration,
    transaction_status: d.status,
    transaction_type: 'disbursement',
    pending_reason: d.pending_reason,
    failure_reason: d.failure_reason,
    message: d.message,
    created_at: apiTime(d.created_at),
    updated_at: apiTime(d.updated_at),
  };
}
