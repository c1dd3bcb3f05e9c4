// Reads the reports' CSV files back with an independent parser (csv-parse), and exact decimal text as minor units.
import { parse } from 'csv-parse/sync';

export function parseCsv(text: string): Record<string, string>[] {
  return parse(text, { columns: true, record_delimiter: '\r\n', skip_empty_lines: false, relax_column_count: false });
}

export function headerOf(text: string): string[] {
  return parse(text, { to_line: 1 })[0] as string[];
}

/** "-29.10" -> -2910n; exact, never through a float. */
export function minorOf(text: string): bigint {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(text);
  if (!m) throw new Error(`not exact decimal text: ${JSON.stringify(text)}`);
  const minor = BigInt(m[2]) * 100n + BigInt(m[3]);
  return m[1] ? -minor : minor;
}
