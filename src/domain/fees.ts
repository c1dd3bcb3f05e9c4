// Fees and the split between merchant and customer (docs/contract/money.md): fee = percent% of account_amount
// + fixed, in the wallet currency; the fee bearer decides who pays it. Pure.
import { percentOf } from './money';

export const FEE_BEARERS = ['merchant', 'customer'] as const;
export type FeeBearer = (typeof FEE_BEARERS)[number];

export interface FeeRule {
  /** NUMERIC text, "3" or "2.50" = that many percent */
  percent: string;
  fixedMinor: bigint;
}

export interface FeeSplit {
  feeMinor: bigint;
  totalCreditMinor: bigint;
  customerCharged: boolean;
}

/** No rule for the payment method = no fee. */
export function feeOf(accountAmountMinor: bigint, rule: FeeRule | null): bigint {
  if (!rule) return 0n;
  return percentOf(accountAmountMinor, rule.percent) + rule.fixedMinor;
}

/**
 * merchant: the wallet gets account_amount - fee. A fee larger than the amount (a big fixed part on a
 * small payment) is capped at the amount, so a credit is never negative and the ledger never takes
 * money the collection did not bring. customer: the customer pays account_amount + fee, the wallet
 * gets account_amount.
 */
export function splitFee(accountAmountMinor: bigint, feeMinor: bigint, bearer: FeeBearer): FeeSplit {
  if (accountAmountMinor < 0n || feeMinor < 0n) throw new RangeError('amounts must not be negative');
  if (bearer === 'customer') {
    return { feeMinor, totalCreditMinor: accountAmountMinor, customerCharged: true };
  }
  const capped = feeMinor > accountAmountMinor ? accountAmountMinor : feeMinor;
  return { feeMinor: capped, totalCreditMinor: accountAmountMinor - capped, customerCharged: false };
}

/** What the customer pays in the wallet currency: account_amount, plus the fee when charged to them. */
export function customerPaysMinor(accountAmountMinor: bigint, feeMinor: bigint, customerCharged: boolean): bigint {
  return customerCharged ? accountAmountMinor + feeMinor : accountAmountMinor;
}
