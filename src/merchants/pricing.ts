// Wallet choice, market-rate conversion and fees of a collection, fixed at request time.
import { pgp } from '../db';
import type { PaymentMethod } from '../domain/collection';
import { feeOf, splitFee } from '../domain/fees';
import type { FeeBearer, FeeRule } from '../domain/fees';
import { convertMinor, pickRate } from '../domain/fx';
import type { FxRate, FxRow } from '../domain/fx';
import { MAX_EXACT_MINOR } from '../domain/money';
import { AppError, validationError } from '../errors';

export interface PriceRequest {
  businessId: number;
  paymentMethod: PaymentMethod;
  requestCurrency: string;
  requestAmountMinor: bigint;
}

export interface Price {
  accountCurrency: string;
  accountAmountMinor: bigint;
  /** the rate used (request -> wallet) as a decimal string; null when no conversion */
  fxRate: string | null;
  feeMinor: bigint;
  totalCreditMinor: bigint;
  customerCharged: boolean;
}

/**
 * What pricing reads, fetched by one scalar subquery (pricingInputsSql) that a caller can embed in a
 * larger read: the chosen wallet with its business's fee bearer, the fee rule of the payment method,
 * and the rate rows between the request currency and the wallet's (null when no conversion).
 */
export interface PricingInputs {
  currency: string;
  fee_bearer: FeeBearer;
  fee: { percent: string; fixed_minor: string } | null;
  fx: FxRow[] | null;
}

/**
 * JSON of PricingInputs, or null when the business has no wallet that can take the currency. The
 * wallet is the one in the request currency, else the default wallet (flagged, else the default
 * currency's). Amounts and rates are read as text: JSON numbers would round them.
 */
export function pricingInputsSql(r: Omit<PriceRequest, 'requestAmountMinor'>): string {
  return pgp.as.format(
    `(SELECT json_build_object('currency', w.currency, 'fee_bearer', w.fee_bearer,
        'fee', (SELECT json_build_object('percent', f.percent::text, 'fixed_minor', f.fixed_minor::text)
                FROM business_fees f WHERE f.business_id = $1 AND f.payment_method = $3),
        'fx', CASE WHEN w.currency <> $2 THEN (SELECT json_agg(json_build_object('base', x.base, 'quote', x.quote, 'rate', x.rate::text))
                FROM fx_rates x WHERE (x.base = $2 AND x.quote = w.currency) OR (x.base = w.currency AND x.quote = $2)) END)
      FROM (SELECT w.currency, b.fee_bearer FROM wallets w JOIN businesses b ON b.id = w.business_id
            WHERE w.business_id = $1 AND (w.currency = $2 OR w.is_default OR w.currency = b.default_currency)
            ORDER BY (w.currency = $2) DESC, w.is_default DESC LIMIT 1) w)`,
    [r.businessId, r.requestCurrency, r.paymentMethod],
  );
}

export class PricingService {
  /**
   * The price from inputs already read (pricingInputsSql, kept by the configuration cache). Throws AppError
   * UNSUPPORTED_CURRENCY when no wallet and no rate can take the currency.
   */
  priceFrom(inputs: PricingInputs | null, r: PriceRequest): Price {
    if (!inputs) throw new AppError('UNSUPPORTED_CURRENCY');
    let rate: FxRate | null = null;
    if (inputs.currency !== r.requestCurrency) {
      rate = pickRate(r.requestCurrency, inputs.currency, inputs.fx ?? []);
      if (!rate) throw new AppError('UNSUPPORTED_CURRENCY');
    }
    const accountAmountMinor = rate ? convertMinor(r.requestAmountMinor, rate) : r.requestAmountMinor;
    if (accountAmountMinor <= 0n) {
      throw validationError([{ field: 'amount', message: `amount is less than 0.01 ${inputs.currency} once converted` }]);
    }
    if (accountAmountMinor > MAX_EXACT_MINOR) {
      throw validationError([{ field: 'amount', message: `amount is too large once converted to ${inputs.currency}` }]);
    }
    const rule: FeeRule | null = inputs.fee ? { percent: inputs.fee.percent, fixedMinor: BigInt(inputs.fee.fixed_minor) } : null;
    const split = splitFee(accountAmountMinor, feeOf(accountAmountMinor, rule), inputs.fee_bearer);
    if (split.feeMinor + accountAmountMinor > MAX_EXACT_MINOR) {
      throw validationError([{ field: 'amount', message: 'amount is too large once the fee is added' }]);
    }
    return { accountCurrency: inputs.currency, accountAmountMinor, fxRate: rate ? rate.text : null, ...split };
  }
}
