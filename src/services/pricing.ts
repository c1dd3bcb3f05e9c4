// Wallet choice, market-rate conversion and fees of a collection, fixed at request time.
import type { Tx } from '../db';
import type { PaymentMethod } from '../domain/collection';
import { feeOf, splitFee } from '../domain/fees';
import type { FeeBearer, FeeRule } from '../domain/fees';
import { convertMinor, pickRate } from '../domain/fx';
import type { FxRate, FxRow } from '../domain/fx';
import { MAX_EXACT_MINOR } from '../domain/money';
import { AppError, validationError } from '../errors';
import type { Services } from './index';

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

interface WalletChoice {
  currency: string;
  fee_bearer: FeeBearer;
}

export class PricingService {
  constructor(readonly s: Services) {}

  /** Throws AppError UNSUPPORTED_CURRENCY when no wallet and no rate can take the currency. */
  async price(t: Tx, r: PriceRequest): Promise<Price> {
    const wallet = await this.chooseWallet(t, r.businessId, r.requestCurrency);
    if (!wallet) throw new AppError('UNSUPPORTED_CURRENCY');
    let rate: FxRate | null = null;
    if (wallet.currency !== r.requestCurrency) {
      rate = await this.rate(t, r.requestCurrency, wallet.currency);
      if (!rate) throw new AppError('UNSUPPORTED_CURRENCY');
    }
    const accountAmountMinor = rate ? convertMinor(r.requestAmountMinor, rate) : r.requestAmountMinor;
    if (accountAmountMinor <= 0n) {
      throw validationError([{ field: 'amount', message: `amount is less than 0.01 ${wallet.currency} once converted` }]);
    }
    if (accountAmountMinor > MAX_EXACT_MINOR) {
      throw validationError([{ field: 'amount', message: `amount is too large once converted to ${wallet.currency}` }]);
    }
    const fee = feeOf(accountAmountMinor, await this.feeRule(t, r.businessId, r.paymentMethod));
    const split = splitFee(accountAmountMinor, fee, wallet.fee_bearer);
    if (split.feeMinor + accountAmountMinor > MAX_EXACT_MINOR) {
      throw validationError([{ field: 'amount', message: 'amount is too large once the fee is added' }]);
    }
    return { accountCurrency: wallet.currency, accountAmountMinor, fxRate: rate ? rate.text : null, ...split };
  }

  /** The wallet in the request currency, else the default wallet (flagged, else the default currency's). */
  private chooseWallet(t: Tx, businessId: number, currency: string): Promise<WalletChoice | null> {
    return t.oneOrNone<WalletChoice>(
      `SELECT w.currency, b.fee_bearer FROM wallets w JOIN businesses b ON b.id = w.business_id
       WHERE w.business_id = $1 AND (w.currency = $2 OR w.is_default OR w.currency = b.default_currency)
       ORDER BY (w.currency = $2) DESC, w.is_default DESC LIMIT 1`,
      [businessId, currency],
    );
  }

  async rate(t: Tx, from: string, to: string): Promise<FxRate | null> {
    const rows = await t.any<FxRow>(
      `SELECT base, quote, rate::text AS rate FROM fx_rates
       WHERE (base = $1 AND quote = $2) OR (base = $2 AND quote = $1)`,
      [from, to],
    );
    return pickRate(from, to, rows);
  }

  private async feeRule(t: Tx, businessId: number, method: PaymentMethod): Promise<FeeRule | null> {
    const row = await t.oneOrNone<{ percent: string; fixed_minor: bigint }>(
      'SELECT percent::text AS percent, fixed_minor FROM business_fees WHERE business_id = $1 AND payment_method = $2',
      [businessId, method],
    );
    return row ? { percent: row.percent, fixedMinor: row.fixed_minor } : null;
  }
}
