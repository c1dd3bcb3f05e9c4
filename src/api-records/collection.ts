// The collection record of the API (specification "Collection transaction record", docs/contract/collections.md),
// made from a row. Notifications use the same record plus `sequence`.
import type { components } from '../../generated/merchant-api';
import type { CollectionRow } from '../domain/collection';
import { toApi } from '../domain/money';
import { apiTime, apiTimeOrNull } from '../domain/time';

export function toRecord(row: CollectionRow): CollectionRecord {
  return {
    id: row.id.toString(),
    request_amount: toApi(row.request_amount_minor),
    request_currency: row.request_currency,
    account_amount: toApi(row.account_amount_minor),
    account_currency: row.account_currency,
    transaction_fee: toApi(row.fee_minor),
    total_credit: toApi(row.total_credit_minor),
    refunded_amount: toApi(row.refunded_minor),
    merchant_reference: row.merchant_reference,
    gateway_reference: row.gateway_reference,
    transaction_status: row.status,
    transaction_type: 'collection' as const,
    message: row.message,
    customer_charged: row.customer_charged,
    fx_rate: row.fx_rate === null ? null : Number(row.fx_rate),
    fx_reference_rate: row.fx_reference_rate === null ? null : Number(row.fx_reference_rate),
    fx_markup: row.fx_markup === null ? null : Number(row.fx_markup),
    fx_source: row.fx_source as 'ecb' | 'frankfurter' | 'operator' | 'sandbox' | null,
    fx_as_of: apiTimeOrNull(row.fx_as_of),
    payment_method: row.payment_method,
    payment_url: row.payment_url,
    instructions: row.instructions,
    account_name: row.account_name,
    account_email: row.account_email,
    institution_name: row.institution_name,
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

/** The collection record as the contract defines it. */
export type CollectionRecord = components['schemas']['CollectionRecord'];

export interface PostingRow {
  id: bigint;
  journal_id: bigint;
  gateway_reference: string | null;
  account: string;
  amount_minor: bigint;
  currency: string;
  kind: string;
  created_at: Date;
}

export function toPosting(p: PostingRow) {
  return {
    id: Number(p.id),
    journal_id: Number(p.journal_id),
    gateway_reference: p.gateway_reference,
    account: p.account,
    amount: toApi(p.amount_minor),
    currency: p.currency,
    kind: p.kind,
    created_at: apiTime(p.created_at),
  };
}

/** A collection's request to a real processor, as the operator sees it (its references, never the callback token). */
export interface ProcessorRequestView {
  service_type: string;
  /** ours at the processor (MTN's X-Reference-Id) */
  reference: string;
  /** the processor's own id of the request, when it gives one */
  vendor_reference: string | null;
  state: 'queued' | 'sending' | 'sent' | 'unknown' | 'settled' | 'held';
  send_attempts: number;
  checks: number;
  last_error: string | null;
  held_reason: string | null;
  /** an operator's decision on the request once held */
  resolution: { outcome: 'COMPLETED' | 'FAILED'; note: string; resolved_by: string; resolved_at: string } | null;
}

/** A processor_requests row as read for the operator. */
export interface ProcessorRequestRow extends Omit<ProcessorRequestView, 'resolution'> {
  resolved_outcome: 'COMPLETED' | 'FAILED' | null;
  resolution_note: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
}

export function toProcessorRequestView(r: ProcessorRequestRow): ProcessorRequestView {
  const { resolved_outcome: outcome, resolution_note: note, resolved_by: by, resolved_at: at, ...rest } = r;
  return { ...rest, resolution: outcome && at ? { outcome, note: note ?? '', resolved_by: by ?? '', resolved_at: apiTime(at) } : null };
}

/** A collection's checkout on a processor's own pages, as the operator sees it. */
export interface CheckoutView {
  vendor_reference: string | null;
  url: string | null;
  attempts: number;
}

/** The ledger accounts that are the service's own, not a merchant's wallet: a merchant's people never see them. */
export const SERVICE_ACCOUNTS: readonly string[] = ['processor_clearing', 'fee_revenue'];

/** What the admin record adds to a collection row: read by the caller, which decides what a viewer may see. */
export interface AdminDetails {
  businessName: string;
  postings: PostingRow[];
  processorRequest?: ProcessorRequestView | null;
  checkout?: CheckoutView | null;
}

/**
 * The operator's view: the record plus business, narration, customer account, routing decision,
 * card summary, postings, processor request and checkout.
 */
export function toAdminRecord(row: CollectionRow, d: AdminDetails) {
  return {
    ...toRecord(row),
    business_id: row.business_id,
    business_name: d.businessName,
    narration: row.narration,
    account_number: row.account_number,
    checkout: d.checkout ?? null,
    card: row.card_masked && row.card_fingerprint ? { masked_number: row.card_masked, fingerprint: row.card_fingerprint } : null,
    routing: row.routing,
    late_completed_at: apiTimeOrNull(row.late_completed_at),
    processor_request: d.processorRequest ?? null,
    postings: d.postings.map(toPosting),
  };
}
