// CSV for the reports: RFC 4180 quoting by csv-stringify (quotes, commas and line breaks inside a field),
// amounts as exact decimal text in their currency's own minor unit, times in UTC, and free text that a spreadsheet would run as a formula
// made inert. Rows go out through a Sink, a batch at a time, so a large file never sits in memory.
import { stringify } from 'csv-stringify/sync';
import { formatIn } from '../domain/currencies';
import { apiTime } from '../domain/time';

/** Where a CSV goes: write resolves when the reader has room for more (backpressure). */
export interface Sink {
  write(chunk: string): Promise<void>;
}

export type Cell = string | null;

/** CRLF, as RFC 4180 has it and as spreadsheets expect. */
export function csvLines(rows: Cell[][]): string {
  return rows.length === 0 ? '' : stringify(rows, { record_delimiter: 'windows' });
}

/**
 * Exact decimal text of the API's minor units (hundredths) in the currency's own minor unit (ISO 4217):
 * 2500000n in UGX -> "25000", 1250n in USD -> "12.50", -5n in USD -> "-0.05". A finer amount than the
 * currency's own unit (UGX 0.50, which the API accepts) is written in full ("0.50"), never rounded away.
 */
export function amountCell(minor: bigint | null, currency: string): Cell {
  return minor === null ? null : formatIn(minor, currency);
}

export function timeCell(d: Date | null): Cell {
  return d === null ? null : apiTime(d);
}

/**
 * Text from merchants and customers: a leading =, +, -, @, tab or carriage return would make a
 * spreadsheet read it as a formula (OWASP "CSV injection"), so such text gets a leading apostrophe.
 */
export function textCell(text: string | null): Cell {
  if (text === null) return null;
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
