// The filters of a collection list as SQL, and the exact count of the collections they match read from
// collection_counts (migration 0031) instead of from every collection: whole UTC days come from the
// counts, and only the partial days at the ends of a from/to range are counted row by row, through
// the (business_id[, status], created_at) indexes.
import { sqlFile } from '../db';
import type { Db } from '../db';
import { movementFilters, where } from '../db/filters';
import type { FilterTable, MovementFilters, Where } from '../db/filters';
import type { PaymentMethod, Status } from '../domain/collection';
import { DAY_MS } from '../domain/time';

/** The filters of a collection list (merchant API, operator API, exports). */
export interface CollectionFilters extends MovementFilters {
  status?: Status;
  payment_method?: PaymentMethod;
  /** the operator's search: one collection by its gateway_reference, a customer's by account_number */
  gateway_reference?: string;
  account_number?: string;
  /** only the collections whose processor request is held for an operator's decision; false or absent: every one */
  held?: boolean;
}

const FOLD_PAST_SQL = sqlFile(__dirname, 'fold-past-counts.sql');

/**
 * The filters of a collection list (src/db/filters.ts). The columns exist in both collections and
 * collection_counts, except merchant_reference, gateway_reference, account_number and created_at: the
 * counts leave out from/to (COUNTED_FILTERS) and filter on day instead, and a search by a reference or an
 * account, or of the held, is counted from collections.
 */
const COLLECTION_FILTERS: FilterTable<CollectionFilters> = [
  ...movementFilters('', 'request_currency'),
  { field: 'payment_method', column: 'payment_method', operator: '=' },
  { field: 'gateway_reference', column: 'gateway_reference', operator: '=' },
  { field: 'account_number', column: 'account_number', operator: '=' },
  // the held requests are few and read through processor_requests_waiting (its condition implied by this one)
  { field: 'held', column: "id IN (SELECT collection_id FROM processor_requests WHERE state = 'held')", operator: 'if' },
];
const COUNTED_FILTERS = COLLECTION_FILTERS.filter((c) => c.column !== 'created_at');

/** The conditions of `f` over collections, numbered after `values` (src/db/filters.ts). */
export function collectionWhere(f: CollectionFilters, values: unknown[] = []): Where {
  return where(COLLECTION_FILTERS, f, values);
}

/** A range of created_at counted row by row: [gte, lt) or [gte, lte]. */
export interface EdgeRange {
  gte: Date;
  lt?: Date;
  lte?: Date;
}

export interface DaySplit {
  /** whole UTC days read from the counts, [fromDay, toDay) as YYYY-MM-DD; null = unbounded */
  fromDay: string | null;
  toDay: string | null;
  /** false when no whole day lies inside the range */
  days: boolean;
  edges: EdgeRange[];
}

/**
 * The UTC day of `ms` as PostgreSQL reads a date. Not toISOString: the day after 9999-12-31 (a `from`
 * in the contract's last day rounds up to it) comes out as "+010000-01-01", which PostgreSQL refuses.
 */
function dayOf(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
}

/**
 * Splits the inclusive range [from, to] of created_at into the whole UTC days inside it and the
 * partial days at its ends. Pure: the count statement is built from what it returns.
 */
export function splitDays(from?: Date, to?: Date): DaySplit {
  const lo = from ? Math.ceil(from.getTime() / DAY_MS) * DAY_MS : null;
  const hi = to ? Math.floor(to.getTime() / DAY_MS) * DAY_MS : null;
  if (from && to && lo! >= hi!) return { fromDay: null, toDay: null, days: false, edges: from <= to ? [{ gte: from, lte: to }] : [] };
  const edges: EdgeRange[] = [];
  if (from && from.getTime() < lo!) edges.push({ gte: from, lt: new Date(lo!) });
  if (to) edges.push({ gte: new Date(hi!), lte: to });
  return { fromDay: lo === null ? null : dayOf(lo), toDay: hi === null ? null : dayOf(hi), days: true, edges };
}

/** The statement that counts the collections matching `f`, exactly, in one snapshot, and its values. */
export function collectionCountSql(f: CollectionFilters): Where {
  // one collection per business at most (one in all by gateway_reference), or one customer's, or the few
  // held: their indexes answer at once, and collection_counts has no such columns
  if (f.merchant_reference || f.gateway_reference || f.account_number || f.held) {
    const w = collectionWhere(f);
    return { text: `SELECT count(*) AS total FROM collections WHERE ${w.text}`, values: w.values };
  }
  const split = splitDays(f.from, f.to);
  // the conditions but from/to, the same in every part: the days and the edges bound created_at themselves
  const { text: counted, values } = where(COUNTED_FILTERS, f);
  const param = (v: unknown) => `$${values.push(v)}`;
  const parts: string[] = [];
  if (split.days) {
    const day: string[] = [];
    if (split.fromDay) day.push(`day >= ${param(split.fromDay)}::date`);
    if (split.toDay) day.push(`day < ${param(split.toDay)}::date`);
    parts.push(`(SELECT COALESCE(SUM(n), 0) FROM collection_counts WHERE ${[counted, ...day].join(' AND ')})`);
  }
  for (const e of split.edges) {
    const range = e.lt ? `created_at >= ${param(e.gte)} AND created_at < ${param(e.lt)}` : `created_at >= ${param(e.gte)} AND created_at <= ${param(e.lte)}`;
    parts.push(`(SELECT count(*) FROM collections WHERE ${counted} AND ${range})`);
  }
  return { text: `SELECT (${parts.length ? parts.join(' + ') : '0'})::bigint AS total`, values };
}

export async function countCollections(db: Db, f: CollectionFilters): Promise<number> {
  const count = collectionCountSql(f);
  const { total } = await db.one<{ total: bigint }>(count.text, count.values);
  return Number(total);
}

/**
 * Folds the per-session slots of the days before `today` (UTC) into slot 0, in one statement (so every
 * count stays exact while it runs); returns how many slot rows it folded.
 */
export async function foldPastCounts(db: Db, today: Date): Promise<number> {
  const { folded } = await db.one<{ folded: number }>(FOLD_PAST_SQL, { today: dayOf(today.getTime()) });
  return folded;
}
