// Wallet choice, market-rate conversion and fees of a collection, fixed at request time.
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
 * What pricing reads, with the rest of a request-to-pay's configuration (merchants/sql/request-config.sql):
 * the chosen wallet with its business's fee bearer, the fee rule of the payment method, and the rate rows
 * between the request currency and the wallet's (null when no conversion).
 */
export interface PricingInputs {
  currency: string;
  fee_bearer: FeeBearer;
  fee: { percent: string; fixed_minor: string } | null;
  fx: FxRow[] | null;
}

export class PricingService {
  /**
   * The price from inputs already read (request-config.sql, kept by the configuration cache). Throws AppError
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
