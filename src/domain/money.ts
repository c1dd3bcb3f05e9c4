// Money is integer minor units (bigint) inside; the API's 2-decimal JSON numbers are converted here
// and nowhere else. Every currency of this API uses 2 decimals (the specification's rule for amounts).
import { validationError } from '../errors';
import type { FieldError } from '../errors';

export const SCALE = 2;
const FACTOR = 100n;

export class MoneyFormatError extends Error {}

/** 12.5 -> 1250n. Refuses more than 2 decimals, non-finite and exponent forms. */
export function toMinor(amount: number): bigint {
  if (!Number.isFinite(amount)) throw new MoneyFormatError('amount must be a finite number');
  const text = String(amount);
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new MoneyFormatError(`amount ${text} has more than ${SCALE} decimal places`);
  const minor = BigInt(m[2]) * FACTOR + BigInt((m[3] ?? '').padEnd(SCALE, '0'));
  return m[1] === '-' ? -minor : minor;
}

/** A request's amount in minor units, or why it is none: the error of its field (`amount` unless named; toMinor's rules). */
export function amountOrError(amount: number, field = 'amount'): bigint | FieldError {
  try {
    return toMinor(amount);
  } catch (e) {
    if (e instanceof MoneyFormatError) return { field, message: e.message };
    throw e;
  }
}

/** An amount a person typed ("1500", "1500.50": digits, at most 2 decimals, no sign) in minor units; null when it is not one. */
export function minorFromText(text: string): bigint | null {
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  return BigInt(m[1]) * FACTOR + BigInt((m[2] ?? '').padEnd(SCALE, '0'));
}

/** A request's `amount` in minor units; VALIDATION_ERROR on the field `amount` when it is none. */
export function requestedMinor(amount: number): bigint {
  const minor = amountOrError(amount);
  if (typeof minor !== 'bigint') throw validationError([minor]);
  return minor;
}

/** 1250n -> 12.5 (a JSON number with at most 2 decimals). */
export function toApi(minor: bigint): number {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const text = `${negative ? '-' : ''}${abs / FACTOR}.${(abs % FACTOR).toString().padStart(SCALE, '0')}`;
  return Number(text);
}

/** 1250n -> "12.50", for emails and pages. */
export function formatMinor(minor: bigint): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  return `${negative ? '-' : ''}${abs / FACTOR}.${(abs % FACTOR).toString().padStart(SCALE, '0')}`;
}

/**
 * The largest amount this service computes or shows: 15 digits of minor units. Up to there a JSON
 * number with 2 decimals round-trips exactly through a double, so toApi never loses a cent.
 */
export const MAX_EXACT_MINOR = 999_999_999_999_999n;

/** An exact non-negative rational: a decimal rate or percentage read from NUMERIC text. */
export interface Ratio {
  num: bigint;
  den: bigint;
}

const DECIMAL = /^(\d{1,30})(?:\.(\d{1,30}))?$/;

/** "3700.5" -> 37005/10. Refuses signs, exponents and anything that is not plain decimal text. */
export function parseDecimal(text: string): Ratio {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new MoneyFormatError(`"${text}" is not a plain decimal number`);
  const decimals = m[2] ?? '';
  return { num: BigInt(m[1] + decimals), den: 10n ** BigInt(decimals.length) };
}

/** n / d rounded half away from zero to an integer: the one rounding step of every amount. */
export function roundDiv(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new RangeError('division by zero');
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = an / ad;
  const rounded = (an % ad) * 2n >= ad ? q + 1n : q;
  return negative ? -rounded : rounded;
}

/** amount x ratio, rounded once. */
export function mulRatio(amountMinor: bigint, r: Ratio): bigint {
  return roundDiv(amountMinor * r.num, r.den);
}

/** percent% of amount ("3" = 3 %), rounded once; percent is NUMERIC text such as "2.50". */
export function percentOf(amountMinor: bigint, percent: string): bigint {
  const p = parseDecimal(percent);
  return roundDiv(amountMinor * p.num, p.den * 100n);
}

/** Decimal places of a JSON number as written (19.99 -> 2, 1e-7 -> 7, 1e21 -> 0). */
export function decimalPlaces(n: number): number {
  const [mantissa, exponent] = String(n).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}
