// Market-rate conversion (docs/contract/money.md): { base, quote, rate } means 1 base = rate quote. A missing
// direct rate uses the inverse of the reverse rate, kept as an exact rational so that only the final
// amount is rounded. Pure: the caller reads the rate rows.
import { mulRatio, parseDecimal } from './money';
import type { Ratio } from './money';

export interface FxRow {
  base: string;
  quote: string;
  /** NUMERIC text as stored (up to 12 decimals) */
  rate: string;
}

export interface FxRate {
  ratio: Ratio;
  /** the rate as shown and stored on the collection: the stored text, or an inverse to 12 decimals */
  text: string;
  inverse: boolean;
}

/** Decimals an inverse rate is rendered with: the scale of fx_rates.rate and collections.fx_rate. */
export const RATE_DECIMALS = 12;

export function invert(r: Ratio): Ratio {
  if (r.num === 0n) throw new RangeError('a zero rate has no inverse');
  return { num: r.den, den: r.num };
}

/** A ratio as decimal text with exactly `decimals` places, rounded half away from zero. */
export function formatRatio(r: Ratio, decimals = RATE_DECIMALS): string {
  const scaled = mulRatio(10n ** BigInt(decimals), r);
  const digits = scaled.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** rate(from -> to): the direct row, else the inverse of the reverse row, else null (no rate). */
export function pickRate(from: string, to: string, rows: readonly FxRow[]): FxRate | null {
  const direct = rows.find((r) => r.base === from && r.quote === to);
  if (direct) return { ratio: parseDecimal(direct.rate), text: direct.rate, inverse: false };
  const reverse = rows.find((r) => r.base === to && r.quote === from);
  if (!reverse) return null;
  const ratio = invert(parseDecimal(reverse.rate));
  return { ratio, text: formatRatio(ratio), inverse: true };
}

/** amount in `from` minor units -> amount in `to` minor units, one rounding step. */
export function convertMinor(amountMinor: bigint, rate: FxRate): bigint {
  return mulRatio(amountMinor, rate.ratio);
}
