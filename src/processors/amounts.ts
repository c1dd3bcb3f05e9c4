// Amounts as vendors take them. Inside, money is minor units with the API's two decimals; a vendor may
// take fewer (ISO 4217 zero-decimal currencies, domain/currencies.ts; M-Pesa's whole shillings), so an amount is converted
// only when it is exact, never rounded. The one place the processors' amount rules are read for every kind
// of money movement (collections, refunds, payouts), so each is refused when it is requested, the same way,
// instead of failing at the vendor later (docs/contract/processors.md, "Amounts must match"). Pure.
import { formatMinor, SCALE } from '../domain/money';
import type { FieldError } from '../errors';
import type { Processor } from './types';

/** 50000n (500.00) -> "500" with 0 decimals, "500.00" with 2; null when not exact at that precision. */
export function amountText(amountMinor: bigint, decimals: number): string | null {
  if (decimals < 0 || decimals > SCALE) throw new RangeError('decimals must be 0..2');
  const drop = 10n ** BigInt(SCALE - decimals);
  if (amountMinor % drop !== 0n) return null;
  const units = amountMinor / drop;
  if (decimals === 0) return units.toString();
  const factor = 10n ** BigInt(decimals);
  return `${units / factor}.${(units % factor).toString().padStart(decimals, '0')}`;
}

/** A vendor's decimal amount ("500", "500.5", 500, 1.0) -> minor units; null when not a plain amount. */
export function parseVendorAmount(value: unknown): bigint | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  const m = /^(\d{1,15})(?:\.(\d{1,2})0*)?$/.exec(text);
  if (!m) return null;
  return BigInt(m[1]) * 10n ** BigInt(SCALE) + BigInt((m[2] ?? '').padEnd(SCALE, '0'));
}

/** What moves money through a processor. */
export type AmountKind = 'collection' | 'refund' | 'payout';

export interface AmountAsked {
  kind: AmountKind;
  /** what the processor is asked to move, in the API's minor units */
  amountMinor: bigint;
  currency: string;
  /** a refund: what the refunded payment was for (a processor that refunds whole payments only takes exactly that) */
  paidMinor?: bigint;
  /** a collection whose customer bears the fee: the amount includes it */
  feeIncluded?: boolean;
}

/** The amount as the processor takes it, or the field error that refuses the request. */
export type AmountCheck = { text: string; refused: null } | { text: null; refused: FieldError };

const VERB: Record<AmountKind, string> = { collection: 'takes', refund: 'refunds', payout: 'pays out' };

/**
 * Whether `p` can move `a` exactly: its decimals in the currency (0 = whole units only) for every kind,
 * and for a refund its whole-payment rule (M-Pesa reverses a payment whole). Never rounds.
 */
export function checkAmount(p: Pick<Processor, 'amountDecimals' | 'connector'>, a: AmountAsked): AmountCheck {
  const decimals = p.amountDecimals(a.currency);
  if (decimals === null) return { text: null, refused: { field: 'currency', message: `the chosen processor does not take ${a.currency}` } };
  const text = amountText(a.amountMinor, decimals);
  if (text === null) {
    const rule = decimals === 0 ? 'whole units, without decimals' : `at most ${decimals} decimal places`;
    return { text: null, refused: { field: 'amount', message: `the processor ${VERB[a.kind]} ${a.currency} in ${rule}${a.feeIncluded ? ' (fee included)' : ''}` } };
  }
  if (a.kind === 'refund' && p.connector?.refunds?.wholePaymentOnly && a.paidMinor !== undefined && a.amountMinor !== a.paidMinor) {
    const whole = `${formatMinor(a.paidMinor)} ${a.currency}`;
    return { text: null, refused: { field: 'amount', message: `the processor refunds a whole payment only: leave amount out, or send ${whole}` } };
  }
  return { text, refused: null };
}
