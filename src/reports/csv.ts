// CSV for the reports: RFC 4180 quoting by csv-stringify (quotes, commas and line breaks inside a field),
// amounts as exact decimal text, times in UTC, and free text that a spreadsheet would run as a formula
// made inert. Rows go out through a Sink, a batch at a time, so a large file never sits in memory.
import { stringify } from 'csv-stringify/sync';
import { formatMinor } from '../domain/money';
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

/** Exact decimal text of minor units: 1250n -> "12.50", -5n -> "-0.05". */
export function amountCell(minor: bigint | null): Cell {
  return minor === null ? null : formatMinor(minor);
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
