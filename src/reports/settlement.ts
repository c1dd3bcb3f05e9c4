// The daily settlement report for operators (docs/reports.md): per processor and MID, what the processor
// confirmed against what we completed and credited, with the fees, for the collections created on one UTC
// day; and every request where the two disagree. As JSON, or as one CSV file of both parts.
import { DAY_MS } from '../domain/time';
import { validationError } from '../errors';
import { amountCell, csvLines, timeCell } from './csv';
import type { Cell } from './csv';
import { reportSql, SNAPSHOT } from './sql';
import type { DbOf } from './sql';

/** Mismatches listed per day at most; the totals count them all. */
export const MAX_MISMATCHES = 5000;
const totalsSql = reportSql('settlement-totals.sql');
const mismatchesSql = reportSql('settlement-mismatches.sql');

export interface SettlementTotals {
  service_type: string;
  mid_id: number;
  currency: string;
  account_currency: string;
  requests: number;
  confirmed_count: number;
  confirmed_minor: bigint;
  declined_count: number;
  completed_count: number;
  completed_minor: bigint;
  credited_minor: bigint;
  fee_minor: bigint;
  mismatches: number;
}

export interface SettlementMismatch {
  gateway_reference: string;
  business_id: number;
  service_type: string;
  mid_id: number;
  processor_reference: string;
  amount_minor: bigint;
  currency: string;
  request_state: string;
  confirmed_outcome: string | null;
  confirmed_at: Date | null;
  status: string;
  created_at: Date;
  mismatch: 'confirmed_not_completed' | 'completed_not_confirmed';
}

export interface SettlementReport {
  date: string;
  totals: SettlementTotals[];
  mismatches: SettlementMismatch[];
}

/** A UTC calendar day, YYYY-MM-DD, not after today: its start and end. */
export function dayOf(date: string, now: Date): { start: Date; end: Date } {
  const start = new Date(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== date) {
    throw validationError([{ field: 'date', message: 'is not a calendar day (YYYY-MM-DD)' }]);
  }
  if (start > now) throw validationError([{ field: 'date', message: 'is in the future' }]);
  return { start, end: new Date(start.getTime() + DAY_MS) };
}

export const SETTLEMENT_CSV_HEADER = [
  'record', 'date_utc', 'service_type', 'mid_id', 'currency', 'account_currency', 'requests', 'confirmed_count',
  'confirmed_amount', 'declined_count', 'completed_count', 'completed_amount', 'credited_amount', 'fees', 'mismatches',
  'gateway_reference', 'business_id', 'processor_reference', 'amount', 'request_state', 'confirmed_outcome',
  'confirmed_at_utc', 'status', 'created_at_utc', 'mismatch',
];

function totalsRecord(date: string, t: SettlementTotals): Cell[] {
  return [
    'total', date, t.service_type, String(t.mid_id), t.currency, t.account_currency, String(t.requests), String(t.confirmed_count),
    amountCell(t.confirmed_minor, t.currency), String(t.declined_count), String(t.completed_count), amountCell(t.completed_minor, t.currency),
    amountCell(t.credited_minor, t.account_currency), amountCell(t.fee_minor, t.account_currency), String(t.mismatches),
    null, null, null, null, null, null, null, null, null, null,
  ];
}

function mismatchRecord(date: string, m: SettlementMismatch): Cell[] {
  return [
    'mismatch', date, m.service_type, String(m.mid_id), m.currency, null, null, null, null, null, null, null, null, null, null,
    m.gateway_reference, String(m.business_id), m.processor_reference, amountCell(m.amount_minor, m.currency), m.request_state, m.confirmed_outcome,
    timeCell(m.confirmed_at), m.status, timeCell(m.created_at), m.mismatch,
  ];
}

/** The report as one CSV file: a `total` record per processor, MID and currency, then a `mismatch` record each. */
export function settlementCsv(r: SettlementReport): string {
  return csvLines([SETTLEMENT_CSV_HEADER, ...r.totals.map((t) => totalsRecord(r.date, t)), ...r.mismatches.map((m) => mismatchRecord(r.date, m))]);
}

export class SettlementReports {
  constructor(
    private readonly db: DbOf,
    private readonly now: () => Date,
  ) {}

  async day(date: string): Promise<SettlementReport> {
    const { start, end } = dayOf(date, this.now());
    const range = { day_start: start, day_end: end };
    return this.db().tx({ mode: SNAPSHOT }, async (t) => ({
      date,
      totals: await t.any<SettlementTotals>(totalsSql, range),
      mismatches: await t.any<SettlementMismatch>(mismatchesSql, { ...range, limit: MAX_MISMATCHES }),
    }));
  }
}
