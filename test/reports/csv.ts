// Reads the reports' CSV files back with an independent parser (csv-parse), and exact decimal text in a
// currency's own minor unit as the API's hundredths.
import { parse } from 'csv-parse/sync';
import { ZERO_DECIMAL_CURRENCIES } from '../../src/domain/currencies';

export function parseCsv(text: string): Record<string, string>[] {
  return parse(text, { columns: true, record_delimiter: '\r\n', skip_empty_lines: false, relax_column_count: false });
}

export function headerOf(text: string): string[] {
  return parse(text, { to_line: 1 })[0] as string[];
}

/**
 * Exact decimal text in the currency's own minor unit back to the API's hundredths, never through a float:
 * "-29.10" USD -> -2910n, "25000" UGX -> 2500000n. A zero-decimal currency has no decimals unless the amount
 * has a finer part ("0.50" UGX -> 50n); a whole amount written with ".00" there, or a USD amount without its
 * two decimals, is refused.
 */
export function minorOf(text: string, currency: string): bigint {
  const zero = ZERO_DECIMAL_CURRENCIES.has(currency);
  const m = zero ? /^(-?)(\d+)(?:\.(\d{2}))?$/.exec(text) : /^(-?)(\d+)\.(\d{2})$/.exec(text);
  if (!m || (zero && m[3] === '00')) throw new Error(`not exact decimal text in ${currency}: ${JSON.stringify(text)}`);
  const minor = BigInt(m[2]) * 100n + BigInt(m[3] ?? '0');
  return m[1] ? -minor : minor;
}

/**
 * A rate's exact decimal text as the reports write it (NUMERIC with 12 decimals: "-92.500000000000") in
 * units of 10^-12, never through a float, so that markup = applied - reference can be checked exactly.
 */
export function rateUnits(text: string): bigint {
  const m = /^(-?)(\d+)\.(\d{12})$/.exec(text);
  if (!m) throw new Error(`not a rate with 12 decimals: ${JSON.stringify(text)}`);
  const units = BigInt(m[2] + m[3]);
  return m[1] ? -units : units;
}
