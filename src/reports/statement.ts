// The wallet statement (docs/reports.md): every movement of one wallet between two times, with the
// opening and closing balances, as pages (JSON) or as one CSV file. Read in one snapshot, so that
// opening + the lines = closing holds exactly, per kind of account and in total.
import type { Tx } from '../db';
import { decodeCursor, encodeCursor } from '../db/keyset';
import type { KeyColumn } from '../db/keyset';
import { DAY_MS } from '../domain/time';
import { AppError, validationError } from '../errors';
import { amountCell, csvLines, timeCell } from './csv';
import type { Cell, Sink } from './csv';
import { reportSql, SNAPSHOT } from './sql';
import type { DbOf } from './sql';

/** The longest period one statement covers: a year and a day (a leap year's statement). */
export const MAX_STATEMENT_DAYS = 367;
/** Lines per query while a CSV file is written. */
const CSV_BATCH = 1000;
const LINE_KEY: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'journal_id', type: 'bigint' },
];
/** Before every line: the keyset position of a statement's start. */
const START = { after: '-infinity', after_journal: '0' };

const walletSql = reportSql('statement-wallet.sql');
const balancesSql = reportSql('statement-balances.sql');
const linesSql = reportSql('statement-lines.sql');

export interface StatementQuery {
  businessId: number;
  currency: string;
  from: Date;
  to: Date;
}

/** Minor units per kind of the wallet's accounts; `other` is any kind added later (a refund hold). */
export interface Buckets {
  available: bigint;
  pending: bigint;
  reserved: bigint;
  other: bigint;
  total: bigint;
}

/**
 * What the customer paid and what it was converted at, on a line that credits a converted collection: the
 * collection's own record of it (rates as NUMERIC text, markup exactly applied - reference; the reference,
 * markup, source and as-of null for a collection converted before markups were recorded).
 */
export interface LineFx {
  requestAmountMinor: bigint;
  requestCurrency: string;
  rate: string;
  referenceRate: string | null;
  markup: string | null;
  source: string | null;
  asOf: Date | null;
}

export interface StatementLine {
  at: Date;
  journalId: bigint;
  kind: string;
  referenceType: 'collection' | 'refund' | 'disbursement' | null;
  reference: string | null;
  collectionReference: string | null;
  /** the merchant's own reference of the refund, disbursement or collection the line belongs to */
  merchantReference: string | null;
  change: Buckets;
  feeMinor: bigint;
  balanceAfterMinor: bigint;
  /** null on every line but the credit of a converted collection */
  fx: LineFx | null;
}

export interface StatementPage {
  opening: Buckets;
  closing: Buckets;
  lines: StatementLine[];
  /** lines in the whole period */
  total: number;
  nextCursor: string | null;
}

interface LineRow {
  created_at: Date;
  journal_id: bigint;
  kind: string;
  reference_type: StatementLine['referenceType'];
  reference: string | null;
  collection_reference: string | null;
  merchant_reference: string | null;
  request_amount_minor: bigint | null;
  request_currency: string | null;
  fx_rate: string | null;
  fx_reference_rate: string | null;
  fx_markup: string | null;
  fx_source: string | null;
  fx_as_of: Date | null;
  available_minor: bigint;
  pending_minor: bigint;
  reserved_minor: bigint;
  other_minor: bigint;
  net_minor: bigint;
  fee_minor: bigint;
  page_key: string;
}

interface BalanceRow {
  kind: string;
  opening_minor: bigint;
  closing_minor: bigint;
  at_minor: bigint;
  lines: number;
}

const WALLET_KINDS = ['available', 'pending', 'reserved'];

/** Balances of each account kind folded into the statement's buckets. */
export function bucketsOf(rows: { kind: string; minor: bigint }[]): Buckets {
  const b: Buckets = { available: 0n, pending: 0n, reserved: 0n, other: 0n, total: 0n };
  for (const r of rows) {
    const bucket = WALLET_KINDS.includes(r.kind) ? (r.kind as 'available' | 'pending' | 'reserved') : 'other';
    b[bucket] += r.minor;
    b.total += r.minor;
  }
  return b;
}

/** A period the statement can cover: from before to, both given, at most MAX_STATEMENT_DAYS apart. */
export function checkPeriod(from: Date, to: Date): void {
  const bad = (field: string, message: string) => validationError([{ field, message }]);
  if (Number.isNaN(from.getTime())) throw bad('from', 'is not a valid time');
  if (Number.isNaN(to.getTime())) throw bad('to', 'is not a valid time');
  if (from >= to) throw bad('to', 'must be after from');
  if (to.getTime() - from.getTime() > MAX_STATEMENT_DAYS * DAY_MS) throw bad('to', `must be at most ${MAX_STATEMENT_DAYS} days after from`);
}

function lineOf(r: LineRow, balanceAfterMinor: bigint): StatementLine {
  return {
    at: r.created_at,
    journalId: r.journal_id,
    kind: r.kind,
    referenceType: r.reference_type,
    reference: r.reference,
    collectionReference: r.collection_reference,
    merchantReference: r.merchant_reference,
    change: { available: r.available_minor, pending: r.pending_minor, reserved: r.reserved_minor, other: r.other_minor, total: r.net_minor },
    feeMinor: r.fee_minor,
    balanceAfterMinor,
    fx: fxOf(r),
  };
}

/** The conversion on the credit of a converted collection; null on every other line (the row reads it for each line of a collection). */
function fxOf(r: LineRow): LineFx | null {
  if (r.kind !== 'collection_credit' || r.fx_rate === null || r.request_amount_minor === null || r.request_currency === null) return null;
  return {
    requestAmountMinor: r.request_amount_minor,
    requestCurrency: r.request_currency,
    rate: r.fx_rate,
    referenceRate: r.fx_reference_rate,
    markup: r.fx_markup,
    source: r.fx_source,
    asOf: r.fx_as_of,
  };
}

/** Lines with the total balance after each, starting from `before`. */
function withBalances(rows: LineRow[], before: bigint): StatementLine[] {
  let balance = before;
  return rows.map((r) => {
    balance += r.net_minor;
    return lineOf(r, balance);
  });
}

export const STATEMENT_CSV_HEADER = [
  'time_utc', 'journal_id', 'kind', 'reference_type', 'reference', 'collection_reference', 'merchant_reference',
  'available', 'pending', 'reserved', 'other', 'net', 'fee', 'balance_after', 'currency',
  'request_amount', 'request_currency', 'fx_rate', 'fx_reference_rate', 'fx_markup', 'fx_source', 'fx_as_of_utc',
];

/** The FX cells of a record: blank unless the line credits a converted collection. */
const NO_FX: Cell[] = [null, null, null, null, null, null, null];

function balanceRecord(kind: 'opening_balance' | 'closing_balance', at: Date, b: Buckets, currency: string): Cell[] {
  return [timeCell(at), null, kind, null, null, null, null, amountCell(b.available, currency), amountCell(b.pending, currency), amountCell(b.reserved, currency), amountCell(b.other, currency), null, null, amountCell(b.total, currency), currency, ...NO_FX];
}

function lineRecord(l: StatementLine, currency: string): Cell[] {
  const c = l.change;
  return [
    timeCell(l.at), String(l.journalId), l.kind, l.referenceType, l.reference, l.collectionReference, l.merchantReference,
    amountCell(c.available, currency), amountCell(c.pending, currency), amountCell(c.reserved, currency), amountCell(c.other, currency), amountCell(c.total, currency),
    amountCell(l.feeMinor, currency), amountCell(l.balanceAfterMinor, currency), currency, ...fxCells(l.fx),
  ];
}

function fxCells(fx: LineFx | null): Cell[] {
  if (fx === null) return NO_FX;
  return [amountCell(fx.requestAmountMinor, fx.requestCurrency), fx.requestCurrency, fx.rate, fx.referenceRate, fx.markup, fx.source, timeCell(fx.asOf)];
}

export class WalletStatements {
  constructor(private readonly db: DbOf) {}

  /** The wallet's id; NOT_FOUND when the business or its wallet in the currency does not exist. */
  async walletOf(q: StatementQuery): Promise<number> {
    checkPeriod(q.from, q.to);
    const found = await this.db().oneOrNone<{ wallet_id: number | null }>(walletSql, { business_id: q.businessId, currency: q.currency });
    if (!found) throw new AppError('NOT_FOUND', `No business with id ${q.businessId}`);
    if (found.wallet_id === null) throw new AppError('NOT_FOUND', `No ${q.currency} wallet`);
    return found.wallet_id;
  }

  /** One page of the statement, oldest line first, after `cursor` when given. */
  async page(q: StatementQuery, limit: number, cursor: string | null): Promise<StatementPage> {
    const walletId = await this.walletOf(q);
    const position = cursor === null ? START : this.positionOf(cursor);
    return this.inSnapshot(async (t) => {
      const balances = await this.balances(t, walletId, q, position);
      const rows = await t.any<LineRow>(linesSql, { wallet_id: walletId, from: q.from, to: q.to, ...position, limit: limit + 1 });
      const more = rows.length > limit;
      const shown = rows.slice(0, limit);
      return {
        opening: balances.opening,
        closing: balances.closing,
        lines: withBalances(shown, balances.atMinor),
        total: balances.lines,
        nextCursor: more ? encodeCursor(shown[shown.length - 1].page_key) : null,
      };
    });
  }

  /**
   * The whole statement as CSV: a header, the opening balance, every line oldest first, the closing
   * balance. walletOf has answered first, so a refusal is still an error response, not half a file.
   */
  async writeCsv(q: StatementQuery, walletId: number, sink: Sink): Promise<void> {
    await this.inSnapshot(async (t) => {
      const balances = await this.balances(t, walletId, q, START);
      await sink.write(csvLines([STATEMENT_CSV_HEADER, balanceRecord('opening_balance', q.from, balances.opening, q.currency)]));
      let position = START;
      let balance = balances.opening.total;
      for (;;) {
        const rows = await t.any<LineRow>(linesSql, { wallet_id: walletId, from: q.from, to: q.to, ...position, limit: CSV_BATCH });
        const lines = withBalances(rows, balance);
        if (lines.length > 0) {
          await sink.write(csvLines(lines.map((l) => lineRecord(l, q.currency))));
          balance = lines[lines.length - 1].balanceAfterMinor;
        }
        if (rows.length < CSV_BATCH) break;
        position = this.positionOf(encodeCursor(rows[rows.length - 1].page_key));
      }
      // one snapshot: anything else is a bug, and the file stops short rather than lie
      if (balance !== balances.closing.total) throw new Error(`statement of wallet ${walletId} does not reconcile: ${balance} <> ${balances.closing.total}`);
      await sink.write(csvLines([balanceRecord('closing_balance', q.to, balances.closing, q.currency)]));
    });
  }

  private inSnapshot<T>(fn: (t: Tx) => Promise<T>): Promise<T> {
    return this.db().tx({ mode: SNAPSHOT }, fn);
  }

  private positionOf(cursor: string): { after: string; after_journal: string } {
    const [after, journal] = JSON.parse(decodeCursor(cursor, LINE_KEY)) as [string, number | string];
    return { after, after_journal: String(journal) };
  }

  private async balances(t: Tx, walletId: number, q: StatementQuery, at: { after: string; after_journal: string }) {
    const rows = await t.any<BalanceRow>(balancesSql, { wallet_id: walletId, from: q.from, to: q.to, at: at.after, at_journal: at.after_journal });
    return {
      opening: bucketsOf(rows.map((r) => ({ kind: r.kind, minor: r.opening_minor }))),
      closing: bucketsOf(rows.map((r) => ({ kind: r.kind, minor: r.closing_minor }))),
      atMinor: bucketsOf(rows.map((r) => ({ kind: r.kind, minor: r.at_minor }))).total,
      lines: rows[0]?.lines ?? 0,
    };
  }
}
