// Market-rate conversion (docs/contract/money.md): { base, quote, rate } means 1 base = rate quote. A missing
// direct rate uses the inverse of the reverse rate, and with neither, a cross rate through the pivot (EUR, the
// base of the ECB and Frankfurter feeds): from -> EUR -> to, each leg direct or inverted. Every step is kept as
// an exact rational so that only the final amount is rounded. A rate has a source and an as_of (the time it is
// valid for); one past its source's max age is not used. Pure: the caller reads the rate rows and the clock.
import { mulRatio, parseDecimal } from './money';
import type { Ratio } from './money';

export type RateSource = 'ecb' | 'frankfurter' | 'operator' | 'sandbox';
export const RATE_SOURCES: readonly RateSource[] = ['ecb', 'frankfurter', 'operator', 'sandbox'];

/** The currency cross rates go through: the base of the daily reference feeds. */
export const PIVOT = 'EUR';

export interface FxRow {
  base: string;
  quote: string;
  /** NUMERIC text as stored (up to 12 decimals) */
  rate: string;
  /** absent in rows built by hand (tests): an operator rate, never stale */
  source?: RateSource;
  /** ISO time the rate is valid for */
  as_of?: string;
}

export interface FxRate {
  ratio: Ratio;
  /** the rate as shown and stored on the collection: the stored text, or an inverse or cross rate to 12 decimals */
  text: string;
  inverse: boolean;
  /** the currency a cross rate went through; null for a direct or inverse rate */
  pivot: string | null;
  /** the source of the rate (of a cross rate: of its older leg) */
  source: RateSource;
  /** when the rate is valid for (of a cross rate: the older leg's); null when the rows carry none */
  asOf: Date | null;
}

/** Decimals an inverse rate is rendered with: the scale of fx_rates.rate and collections.fx_rate. */
export const RATE_DECIMALS = 12;

export function invert(r: Ratio): Ratio {
  if (r.num === 0n) throw new RangeError('a zero rate has no inverse');
  return { num: r.den, den: r.num };
}

export function mulRatios(a: Ratio, b: Ratio): Ratio {
  return { num: a.num * b.num, den: a.den * b.den };
}

/** A ratio as decimal text with exactly `decimals` places, rounded half away from zero. */
export function formatRatio(r: Ratio, decimals = RATE_DECIMALS): string {
  const scaled = mulRatio(10n ** BigInt(decimals), r);
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(decimals + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

function rateOf(row: FxRow, inverse: boolean): FxRate {
  const stored = parseDecimal(row.rate);
  const ratio = inverse ? invert(stored) : stored;
  return { ratio, text: inverse ? formatRatio(ratio) : row.rate, inverse, pivot: null, source: row.source ?? 'operator', asOf: row.as_of ? new Date(row.as_of) : null };
}

/** The direct row, else the inverse of the reverse row, among `rows`. */
function oneLeg(from: string, to: string, rows: readonly FxRow[]): FxRate | null {
  const direct = rows.find((r) => r.base === from && r.quote === to);
  if (direct) return rateOf(direct, false);
  const reverse = rows.find((r) => r.base === to && r.quote === from);
  return reverse ? rateOf(reverse, true) : null;
}

function older(a: FxRate, b: FxRate): FxRate {
  if (!a.asOf) return b;
  if (!b.asOf) return a;
  return b.asOf < a.asOf ? b : a;
}

/** rate(from -> to): direct, else inverse, else through the pivot, else null (no rate among `rows`). */
export function pickRate(from: string, to: string, rows: readonly FxRow[]): FxRate | null {
  const leg = oneLeg(from, to, rows);
  if (leg || from === PIVOT || to === PIVOT) return leg;
  const first = oneLeg(from, PIVOT, rows);
  const second = oneLeg(PIVOT, to, rows);
  if (!first || !second) return null;
  const ratio = mulRatios(first.ratio, second.ratio);
  const limit = older(first, second);
  return { ratio, text: formatRatio(ratio), inverse: false, pivot: PIVOT, source: limit.source, asOf: limit.asOf };
}

export type RateChoice = { kind: 'rate'; rate: FxRate } | { kind: 'stale'; asOf: Date } | { kind: 'none' };

/**
 * The rate from -> to among the rows still current (`current(row)`): a stale row is left out, so a current
 * cross rate is used where the direct one is stale. With none current but some there, `stale` with the
 * newest as_of of the rows that would have made a rate (the time the caller's rate stopped moving).
 */
export function chooseRate(from: string, to: string, rows: readonly FxRow[], current: (row: FxRow) => boolean): RateChoice {
  const fresh = pickRate(from, to, rows.filter(current));
  if (fresh) return { kind: 'rate', rate: fresh };
  const any = pickRate(from, to, rows);
  if (!any) return { kind: 'none' };
  return { kind: 'stale', asOf: any.asOf ?? new Date(0) };
}

/**
 * The rate a business's FX markup leaves: reference x (1 - percent/100), exact. Its text is the reference's
 * own when there is no markup, else rendered to 12 decimals; `markup` is applied - reference computed on
 * the two texts (both of at most 12 decimals), so the difference shown is exact.
 */
export function withMarkup(reference: FxRate, percent: string): { applied: FxRate; markup: string } {
  const p = parseDecimal(percent);
  if (p.num === 0n) return { applied: reference, markup: formatRatio({ num: 0n, den: 1n }) };
  const ratio = mulRatios(reference.ratio, { num: 100n * p.den - p.num, den: 100n * p.den });
  const text = formatRatio(ratio);
  const a = parseDecimal(text);
  const r = parseDecimal(reference.text);
  const markup = formatRatio({ num: a.num * r.den - r.num * a.den, den: a.den * r.den });
  return { applied: { ...reference, ratio, text, inverse: false }, markup };
}

/** amount in `from` minor units -> amount in `to` minor units, one rounding step. */
export function convertMinor(amountMinor: bigint, rate: FxRate): bigint {
  return mulRatio(amountMinor, rate.ratio);
}
