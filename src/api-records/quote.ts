// An FX quote's row (fx_quotes, written by merchants/quotes.ts) and the contract's Quote built from it.
import type { PaymentMethod } from '../domain/collection';
import type { RateSource } from '../domain/fx';
import { toApi } from '../domain/money';
import { apiTime, apiTimeOrNull } from '../domain/time';
import type { components } from '../../generated/merchant-api';

export type QuoteRecord = components['schemas']['Quote'];

export interface QuoteRow {
  quote_id: string;
  business_id: number;
  payment_method: PaymentMethod;
  request_amount_minor: bigint;
  request_currency: string;
  account_currency: string;
  account_amount_minor: bigint;
  /** NUMERIC text, as stored */
  fx_rate: string;
  fx_reference_rate: string;
  fx_markup: string;
  fx_source: RateSource;
  fx_as_of: Date | null;
  fee_minor: bigint;
  total_credit_minor: bigint;
  customer_charged: boolean;
  created_at: Date;
  expires_at: Date;
}

/** The row as the contract's Quote. */
export function quoteRecord(row: QuoteRow): QuoteRecord {
  return {
    quote_id: row.quote_id,
    amount: toApi(row.request_amount_minor),
    currency: row.request_currency,
    payment_method: row.payment_method,
    account_currency: row.account_currency,
    account_amount: toApi(row.account_amount_minor),
    fx_reference_rate: Number(row.fx_reference_rate),
    fx_markup: Number(row.fx_markup),
    fx_rate: Number(row.fx_rate),
    fx_source: row.fx_source,
    fx_as_of: apiTimeOrNull(row.fx_as_of),
    transaction_fee: toApi(row.fee_minor),
    total_credit: toApi(row.total_credit_minor),
    customer_charged: row.customer_charged,
    created_at: apiTime(row.created_at),
    expires_at: apiTime(row.expires_at),
  };
}
