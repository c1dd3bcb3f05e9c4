// Wallet choice, market-rate conversion and fees of a collection, fixed at request time. A conversion uses
// only a current rate (src/domain/rate-age.ts): with every rate for the pair past its max age, the request
// is refused with RATE_UNAVAILABLE and nothing is created.
import type { PaymentMethod } from '../domain/collection';
import { feeOf, splitFee } from '../domain/fees';
import type { FeeBearer, FeeRule } from '../domain/fees';
import { chooseRate, convertMinor, withMarkup } from '../domain/fx';
import type { FxRate, FxRow, RateSource } from '../domain/fx';
import { MAX_EXACT_MINOR } from '../domain/money';
import { DEFAULT_MAX_AGES, rowCurrent } from '../domain/rate-age';
import type { RateMaxAges } from '../domain/rate-age';
import { apiTime } from '../domain/time';
import { AppError, validationError } from '../errors';

/** Seconds a refused conversion's caller waits before asking again: a feed refresh or an operator's rate may come meanwhile. */
export const RATE_RETRY_AFTER_SECONDS = 300;

export interface PriceRequest {
  businessId: number;
  paymentMethod: PaymentMethod;
  requestCurrency: string;
  requestAmountMinor: bigint;
  /** the clock of the request: a rate's age is measured to it */
  now: Date;
}

export interface Price {
  accountCurrency: string;
  accountAmountMinor: bigint;
  /** the rate used (request -> wallet) as a decimal string; null when no conversion */
  fxRate: string | null;
  /** the market rate before the business's markup, and applied - reference (exact); null when no conversion */
  fxReferenceRate: string | null;
  fxMarkup: string | null;
  /** where the rate came from and when it is valid for; null when no conversion */
  fxSource: RateSource | null;
  fxAsOf: Date | null;
  feeMinor: bigint;
  totalCreditMinor: bigint;
  customerCharged: boolean;
}

/**
 * What pricing reads, with the rest of a request-to-pay's configuration (merchants/sql/request-config.sql):
 * the chosen wallet with its business's fee bearer, the fee rule of the payment method, and the rate rows
 * between the request currency and the wallet's (null when no conversion).
 */
export interface PricingInputs {
  currency: string;
  fee_bearer: FeeBearer;
  /** the business's FX markup in percent, NUMERIC text ("2.00"); absent = none */
  fx_markup_percent?: string;
  fee: { percent: string; fixed_minor: string } | null;
  fx: FxRow[] | null;
}

export class PricingService {
  constructor(private readonly maxAges: RateMaxAges = DEFAULT_MAX_AGES) {}

  /**
   * The price from inputs already read (request-config.sql, kept by the configuration cache). Throws AppError
   * UNSUPPORTED_CURRENCY when no wallet and no rate can take the currency, RATE_UNAVAILABLE when the rates
   * that could are all past their max age.
   */
  priceFrom(inputs: PricingInputs | null, r: PriceRequest): Price {
    if (!inputs) throw new AppError('UNSUPPORTED_CURRENCY');
    let rate: FxRate | null = null;
    let reference: FxRate | null = null;
    let markup: string | null = null;
    if (inputs.currency !== r.requestCurrency) {
      const choice = chooseRate(r.requestCurrency, inputs.currency, inputs.fx ?? [], rowCurrent(r.now, this.maxAges));
      if (choice.kind === 'none') throw new AppError('UNSUPPORTED_CURRENCY');
      if (choice.kind === 'stale') throw rateUnavailable(r.requestCurrency, inputs.currency, choice.asOf);
      reference = choice.rate;
      ({ applied: rate, markup } = withMarkup(reference, inputs.fx_markup_percent ?? '0'));
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
    return {
      accountCurrency: inputs.currency,
      accountAmountMinor,
      fxRate: rate ? rate.text : null,
      fxReferenceRate: reference ? reference.text : null,
      fxMarkup: markup,
      fxSource: rate ? rate.source : null,
      fxAsOf: rate ? rate.asOf : null,
      ...split,
    };
  }
}

/** 503 with Retry-After: the pair has rates, but none current. */
export function rateUnavailable(from: string, to: string, asOf: Date): AppError {
  return new AppError('RATE_UNAVAILABLE', `no current rate for ${from}->${to} since ${apiTime(asOf)}`, { from, to, as_of: apiTime(asOf) }, {
    'Retry-After': String(RATE_RETRY_AFTER_SECONDS),
  });
}
