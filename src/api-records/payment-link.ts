// A payment link's row (payment_links, written by src/payment-links/), the same with its counts (the
// payment_links_counted view) and the contract's PaymentLink built from that.
import type { PaymentMethod } from '../domain/collection';
import { toApi } from '../domain/money';
import { apiTime, apiTimeOrNull } from '../domain/time';
import type { components } from '../../generated/merchant-api';

export type PaymentLinkRecord = components['schemas']['PaymentLink'];

export interface CustomField {
  label: string;
  required: boolean;
}

export interface PaymentLinkRow {
  id: bigint;
  link_id: string;
  business_id: number;
  api_token_id: number | null;
  title: string;
  description: string | null;
  currency: string;
  amount_minor: bigint | null;
  min_amount_minor: bigint | null;
  max_amount_minor: bigint | null;
  payment_methods: PaymentMethod[];
  expires_at: Date | null;
  completed_limit: number | null;
  custom_fields: CustomField[];
  redirect_url: string | null;
  confirmation_message: string | null;
  state: 'active' | 'deactivated';
  deactivation_message: string | null;
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A link with its counts, as payment_links_counted reads it: what the API answers. */
export interface CountedPaymentLinkRow extends PaymentLinkRow {
  attempts_count: number;
  completed_count: number;
  collected_minor: bigint;
}

/** The link's public URL on the service's public base URL: the id is all it carries. */
export function linkUrl(publicBaseUrl: string, linkId: string): string {
  return `${publicBaseUrl}/l/${linkId}`;
}

const money = (minor: bigint | null) => (minor === null ? null : toApi(minor));

/** The row as the operator's AdminPaymentLink: the contract's PaymentLink and its business. */
export function adminPaymentLinkRecord(row: CountedPaymentLinkRow, publicBaseUrl: string): PaymentLinkRecord & { business_id: number } {
  return { ...paymentLinkRecord(row, publicBaseUrl), business_id: row.business_id };
}

/** The row as the contract's PaymentLink. */
export function paymentLinkRecord(row: CountedPaymentLinkRow, publicBaseUrl: string): PaymentLinkRecord {
  const url = linkUrl(publicBaseUrl, row.link_id);
  return {
    link_id: row.link_id,
    url,
    qr_png_url: `${url}/qr.png`,
    qr_svg_url: `${url}/qr.svg`,
    title: row.title,
    description: row.description,
    amount: money(row.amount_minor),
    min_amount: money(row.min_amount_minor),
    max_amount: money(row.max_amount_minor),
    currency: row.currency,
    payment_methods: row.payment_methods,
    expires_at: apiTimeOrNull(row.expires_at),
    completed_limit: row.completed_limit,
    custom_fields: row.custom_fields,
    redirect_url: row.redirect_url,
    confirmation_message: row.confirmation_message,
    state: row.state,
    deactivation_message: row.deactivation_message,
    attempts: row.attempts_count,
    completed_payments: row.completed_count,
    amount_collected: toApi(row.collected_minor),
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}
