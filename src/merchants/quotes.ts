// FX quotes (docs/contract/money.md, "Quotes"): what a payment in one currency would credit the wallet in
// another, priced as a request-to-pay would be at this moment (pricing.ts, from the configuration cache's
// inputs) and held until expires_at (FX_QUOTE_TTL_SECONDS). This file is fx_quotes' one writer; a quote is
// never changed once written. A request-to-pay naming a quote asks priceOfQuote for its price, which is the
// quote's whatever the rate did since, while it is valid and matches the request.
import type { Base } from '../base';
import { pooledRandomBytes } from '../crypto/random-pool';
import type { PaymentMethod } from '../domain/collection';
import { requestedMinor } from '../domain/money';
import { apiTime } from '../domain/time';
import { AppError, validationError } from '../errors';
import type { QuoteRow } from '../api-records/quote';
import type { components } from '../../generated/merchant-api';
import type { Principal } from './access-tokens';
import type { ConfigCache } from './config-cache';
import type { Price, PricingService } from './pricing';

export type QuoteCreate = components['schemas']['QuoteCreate'];

/** What a request-to-pay naming a quote must match. */
export interface QuotedRequest {
  businessId: number;
  paymentMethod: PaymentMethod;
  requestAmountMinor: bigint;
  requestCurrency: string;
  /** the wallet the request credits under today's configuration (null: none) */
  accountCurrency: string | null;
  now: Date;
}

/** `qt_` and 24 base64url characters: 144 random bits. */
function newQuoteId(): string {
  return `qt_${pooledRandomBytes(18).toString('base64url')}`;
}

/**
 * The end of a quote given at `now`: `ttlSeconds` after `now`'s whole second, so that the expires_at the API
 * shows (to the second) is the instant the quote stops converting, not up to a second before it.
 */
export function expiryOf(now: Date, ttlSeconds: number): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000 + ttlSeconds * 1000);
}

export interface QuoteParts {
  configCache: ConfigCache;
  pricing: PricingService;
}

export class QuoteService {
  constructor(private readonly s: Base & QuoteParts) {}

  /**
   * Prices the payment as a request-to-pay would now and stores the quote. Refused, writing nothing, with
   * VALIDATION_ERROR (bad amount, the same currency twice, a wallet such a payment does not credit),
   * UNSUPPORTED_CURRENCY (no rate for the pair) or RATE_UNAVAILABLE (no current rate).
   */
  async createQuote(p: Principal, body: QuoteCreate): Promise<QuoteRow> {
    const amountMinor = requestedMinor(body.amount);
    if (body.account_currency === body.currency) {
      throw validationError([{ field: 'account_currency', message: 'must differ from currency: a payment into a wallet of its own currency needs no quote' }]);
    }
    const method = body.payment_method as PaymentMethod;
    const config = await this.s.configCache.forRequest(p.apiTokenId, p.businessId, method, body.currency);
    if (!config.pricing) throw new AppError('UNSUPPORTED_CURRENCY');
    if (config.pricing.currency !== body.account_currency) {
      throw validationError([{ field: 'account_currency', message: `a payment in ${body.currency} is credited to the ${config.pricing.currency} wallet, not ${body.account_currency}` }]);
    }
    const now = this.s.now();
    const price = this.s.pricing.priceFrom(config.pricing, { businessId: p.businessId, paymentMethod: method, requestCurrency: body.currency, requestAmountMinor: amountMinor, now });
    return this.s.db.one<QuoteRow>(
      `INSERT INTO fx_quotes (quote_id, business_id, payment_method, request_amount_minor, request_currency, account_currency, account_amount_minor,
         fx_rate, fx_reference_rate, fx_markup, fx_source, fx_as_of, fee_minor, total_credit_minor, customer_charged, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING *`,
      [
        newQuoteId(), p.businessId, method, amountMinor, body.currency, price.accountCurrency, price.accountAmountMinor,
        price.fxRate, price.fxReferenceRate, price.fxMarkup, price.fxSource, price.fxAsOf, price.feeMinor, price.totalCreditMinor, price.customerCharged,
        now, expiryOf(now, this.s.config.rates.quoteTtlSeconds),
      ],
    );
  }

  /**
   * Deletes up to `limit` quotes, oldest expiry first, that expired before `before` (retention). A collection
   * keeps its own copy of the price it was converted at, so nothing reads a quote once it has expired.
   */
  async deleteExpired(before: Date, limit: number): Promise<number> {
    const sql = 'DELETE FROM fx_quotes WHERE id IN (SELECT id FROM fx_quotes WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)';
    return (await this.s.db.result(sql, [before, limit])).rowCount;
  }

  /** One of the business's quotes; NOT_FOUND for an unknown one or another business's. */
  async getQuote(businessId: number, quoteId: string): Promise<QuoteRow> {
    const row = await this.s.db.oneOrNone<QuoteRow>('SELECT * FROM fx_quotes WHERE quote_id = $1 AND business_id = $2', [quoteId, businessId]);
    if (!row) throw new AppError('NOT_FOUND', 'No quote of yours has this quote_id');
    return row;
  }

  /**
   * The price a request-to-pay naming the quote is converted at: the quote's, to the minor unit, whatever the
   * rate did since. QUOTE_MISMATCH when the quote is not the business's or is for another amount, currency,
   * payment method or wallet; QUOTE_EXPIRED from its expires_at on. A quote may be named any number of times.
   */
  async priceOfQuote(quoteId: string, r: QuotedRequest): Promise<Price> {
    const row = await this.s.db.oneOrNone<QuoteRow>('SELECT * FROM fx_quotes WHERE quote_id = $1 AND business_id = $2', [quoteId, r.businessId]);
    if (!row) throw new AppError('QUOTE_MISMATCH', `quote_id ${quoteId} names no quote of this business`, { quote_id: quoteId, fields: ['quote_id'] });
    const fields = [
      row.request_amount_minor !== r.requestAmountMinor ? 'amount' : null,
      row.request_currency !== r.requestCurrency ? 'currency' : null,
      row.payment_method !== r.paymentMethod ? 'payment_method' : null,
      row.account_currency !== r.accountCurrency ? 'account_currency' : null,
    ].filter((f): f is string => f !== null);
    if (fields.length > 0) {
      throw new AppError('QUOTE_MISMATCH', `quote ${quoteId} does not match this request: ${fields.join(', ')}`, { quote_id: quoteId, fields });
    }
    if (r.now.getTime() >= row.expires_at.getTime()) {
      const at = apiTime(row.expires_at);
      throw new AppError('QUOTE_EXPIRED', `quote ${quoteId} expired at ${at}; ask for a new quote`, { quote_id: quoteId, expires_at: at });
    }
    return {
      accountCurrency: row.account_currency,
      accountAmountMinor: row.account_amount_minor,
      fxRate: row.fx_rate,
      fxReferenceRate: row.fx_reference_rate,
      fxMarkup: row.fx_markup,
      fxSource: row.fx_source,
      fxAsOf: row.fx_as_of,
      feeMinor: row.fee_minor,
      totalCreditMinor: row.total_credit_minor,
      customerCharged: row.customer_charged,
    };
  }
}
