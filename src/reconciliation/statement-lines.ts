// The vendors' statement files read into statement lines (docs/reconciliation.md, "The formats"): pure, one
// record at a time, no database. A line is a payment into the MID or a reversal of one, or money out of it:
// a refund to a customer or a payout to a payee (MTN); fee, balance and other rows are counted, not kept. What the files make awkward is handled here, once:
// - a byte-order mark and quoted fields with commas and line breaks (csv-records.ts);
// - a preamble of the organisation's name, short code and period before the header row (M-Pesa);
// - amounts with thousands separators ("1,500.00"), withdrawals written as negative numbers or in their
//   own column;
// - local times without a zone (M-Pesa: East Africa Time, UTC+3; MTN: the partner's zone, given per file);
// - reversals as rows of their own, naming the payment they reverse (M-Pesa's Linked Transaction ID);
// - charges as rows of their own (not money of the payment).
import { minorFromText } from '../domain/money';
import { CsvError } from './csv-records';
import type { CsvRecord } from './csv-records';

/** A payment into the MID, a reversal of one, or money out: a refund to a customer, a payout to a payee. */
export type LineKind = 'payment' | 'reversal' | 'refund' | 'payout';

export interface StatementLine {
  reference: string;
  kind: LineKind;
  originalReference: string | null;
  /** positive: the kind says which way the money went */
  amountMinor: bigint;
  currency: string;
  occurredAt: Date;
}

/** What a reader made of one record: a line, a row it passes over (a fee, a balance, a failed attempt), or the header. */
export type Read = { line: StatementLine } | { skipped: 'fee' | 'not_completed' | 'other' | 'preamble' | 'header' };

/** A reader of one vendor's file: fed the records in order. */
export interface StatementReader {
  read(r: CsvRecord): Read;
  /** throws when the file ended before its header row */
  finish(): void;
}

/** "1,500.00", "-1,500.00", "1500" -> 150000n (the absolute value); null for an empty cell; CsvError when not an amount. */
export function vendorAmount(text: string, line: number, column: string): bigint | null {
  const t = text.trim().replace(/^\((.*)\)$/, '-$1');
  if (t === '' || t === '-') return null;
  const plain = t.replace(/^[-+]/, '');
  if (!/^\d{1,3}(,\d{3})*(\.\d+)?$|^\d+(\.\d+)?$/.test(plain)) throw new CsvError(line, `${column} "${text}" is not an amount`);
  const unseparated = plain.replace(/,/g, '').replace(/(\.\d\d?)0+$/, '$1');
  const minor = minorFromText(unseparated);
  if (minor === null) throw new CsvError(line, `${column} "${text}" has more than 2 decimals`);
  return minor;
}

/** "2026-11-30 14:03:22" or "30-11-2026 14:03:22" (or with slashes) at `offsetMinutes` east of UTC. */
export function localTime(text: string, offsetMinutes: number, line: number, column: string): Date {
  const t = text.trim();
  const iso = /^(\d{4})[-/](\d{2})[-/](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(t);
  const dmy = /^(\d{2})[-/](\d{2})[-/](\d{4})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(t);
  const parts = iso ? [iso[1], iso[2], iso[3], iso[4], iso[5], iso[6]] : dmy ? [dmy[3], dmy[2], dmy[1], dmy[4], dmy[5], dmy[6]] : null;
  if (!parts) throw new CsvError(line, `${column} "${text}" is not a time (YYYY-MM-DD HH:MM:SS)`);
  const [y, mo, d, h, mi, s] = parts.map((p) => Number(p ?? 0));
  const at = Date.UTC(y, mo - 1, d, h, mi, s) - offsetMinutes * 60_000;
  const back = new Date(at + offsetMinutes * 60_000);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) throw new CsvError(line, `${column} "${text}" is not a time`);
  return new Date(at);
}

/** The columns of a header row by their names, trimmed; CsvError naming those missing. */
function columnsOf(r: CsvRecord, wanted: readonly string[]): Map<string, number> {
  const at = new Map(r.fields.map((f, i) => [f.trim().toLowerCase(), i]));
  const missing = wanted.filter((w) => !at.has(w.toLowerCase()));
  if (missing.length > 0) throw new CsvError(r.line, `the header row has no ${missing.join(', ')} column`);
  return new Map(wanted.map((w) => [w, at.get(w.toLowerCase()) as number]));
}

abstract class HeaderedReader implements StatementReader {
  protected columns: Map<string, number> | null = null;
  private preamble = 0;

  constructor(
    private readonly first: string,
    private readonly wanted: readonly string[],
  ) {}

  read(r: CsvRecord): Read {
    if (!this.columns) {
      if (r.fields[0]?.trim().toLowerCase() !== this.first.toLowerCase()) {
        if (++this.preamble > 50) throw new CsvError(r.line, `no header row starting "${this.first}" in the first 50 records`);
        return { skipped: 'preamble' };
      }
      this.columns = columnsOf(r, this.wanted);
      return { skipped: 'header' };
    }
    return this.row(r, (name) => (r.fields[this.columns?.get(name) as number] ?? '').trim());
  }

  protected abstract row(r: CsvRecord, cell: (name: string) => string): Read;

  finish(): void {
    if (!this.columns) throw new CsvError(0, `the file has no header row starting "${this.first}"`);
  }
}

const MPESA_COLUMNS = ['Receipt No.', 'Completion Time', 'Details', 'Transaction Status', 'Paid In', 'Withdrawn', 'Reason Type', 'Linked Transaction ID'] as const;
const EAT_MINUTES = 180;

/**
 * The M-Pesa organisation statement (the portal's CSV download): a preamble, then a header row from
 * "Receipt No." (Completion Time, Initiation Time, Details, Transaction Status, Paid In, Withdrawn,
 * Balance, Balance Confirmed, Reason Type, Other Party Info, Linked Transaction ID, A/C No.). Only
 * Completed rows move money. A reversal is a Withdrawn row whose Details or Reason Type says so, naming the
 * reversed receipt in Linked Transaction ID; a charge is a Withdrawn row whose Reason Type ends in "Charge".
 * Amounts are KES.
 */
export class MpesaStatementReader extends HeaderedReader {
  constructor() {
    super('Receipt No.', MPESA_COLUMNS);
  }

  protected row(r: CsvRecord, cell: (name: string) => string): Read {
    if (cell('Transaction Status').toLowerCase() !== 'completed') return { skipped: 'not_completed' };
    const reference = cell('Receipt No.');
    if (!/^[A-Z0-9]{6,20}$/.test(reference)) throw new CsvError(r.line, `Receipt No. "${reference}" is not an M-Pesa receipt`);
    const paidIn = vendorAmount(cell('Paid In'), r.line, 'Paid In');
    const withdrawn = vendorAmount(cell('Withdrawn'), r.line, 'Withdrawn');
    const occurredAt = localTime(cell('Completion Time'), EAT_MINUTES, r.line, 'Completion Time');
    const what = `${cell('Details')} ${cell('Reason Type')}`.toLowerCase();
    if (withdrawn && withdrawn > 0n) {
      if (/charge/.test(cell('Reason Type').toLowerCase())) return { skipped: 'fee' };
      if (!/reversal/.test(what)) return { skipped: 'other' };
      const original = cell('Linked Transaction ID');
      if (!original) throw new CsvError(r.line, 'a reversal without a Linked Transaction ID');
      return { line: { reference, kind: 'reversal', originalReference: original, amountMinor: withdrawn, currency: 'KES', occurredAt } };
    }
    if (!paidIn || paidIn === 0n) return { skipped: 'other' };
    if (/charge/.test(cell('Reason Type').toLowerCase())) return { skipped: 'fee' };
    return { line: { reference, kind: 'payment', originalReference: null, amountMinor: paidIn, currency: 'KES', occurredAt } };
  }
}

/** The Type of an MTN row that is a line, but a REVERSAL (which names the payment it reverses). */
const MTN_KINDS: Record<string, 'payment' | 'refund' | 'payout'> = { DEBIT: 'payment', PAYMENT: 'payment', REFUND: 'refund', TRANSFER: 'payout', DISBURSEMENT: 'payout' };

const MTN_COLUMNS = ['Id', 'External Transaction Id', 'Date', 'Status', 'Type', 'Amount', 'Currency', 'Fee'] as const;

/**
 * The MTN MoMo partner report (the partner portal's CSV): a header row from "Id" (External Transaction Id,
 * Date, Status, Type, From, To, Amount, Currency, Fee, Fee Currency, Balance, ...). Our reference is the
 * External Transaction Id (the X-Reference-Id of the request to pay, of the refund, of the transfer). Only
 * SUCCESSFUL rows move money; a REVERSAL row is named by its own Id and carries the reversed payment's
 * External Transaction Id; a REFUND row is a refund we asked for, a TRANSFER (or DISBURSEMENT) row a payout. The fee has its own column and is not part of the payment. Times are the partner's local
 * time, `offsetMinutes` east of UTC.
 */
export class MtnPartnerReportReader extends HeaderedReader {
  constructor(private readonly offsetMinutes: number) {
    super('Id', MTN_COLUMNS);
  }

  protected row(r: CsvRecord, cell: (name: string) => string): Read {
    if (cell('Status').toUpperCase() !== 'SUCCESSFUL') return { skipped: 'not_completed' };
    const amount = vendorAmount(cell('Amount'), r.line, 'Amount');
    const currency = cell('Currency').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw new CsvError(r.line, `Currency "${currency}" is not an ISO 4217 code`);
    const occurredAt = localTime(cell('Date'), this.offsetMinutes, r.line, 'Date');
    const type = cell('Type').toUpperCase();
    if (!amount || amount === 0n) return { skipped: 'other' };
    if (type === 'REVERSAL') {
      const original = cell('External Transaction Id');
      if (!original) throw new CsvError(r.line, 'a reversal without the reversed payment in External Transaction Id');
      return { line: { reference: cell('Id'), kind: 'reversal', originalReference: original, amountMinor: amount, currency, occurredAt } };
    }
    const kind = MTN_KINDS[type];
    if (!kind) return { skipped: 'other' };
    const reference = cell('External Transaction Id');
    if (!reference) throw new CsvError(r.line, `a ${kind} without an External Transaction Id`);
    return { line: { reference, kind, originalReference: null, amountMinor: amount, currency, occurredAt } };
  }
}
