// The filters of a collection list as SQL, and the exact count of the collections they match read from
// collection_counts (migration 0031) instead of from every collection: whole UTC days come from the
// counts, and only the partial days at the ends of a from/to range are counted row by row, through
// the (business_id[, status], created_at) indexes.
import { pgp } from '../db';
import type { Db } from '../db';
import type { PaymentMethod, Status } from '../domain/collection';

/** The filters of a collection list (merchant API, operator API, exports). */
export interface CollectionFilters {
  status?: Status;
  payment_method?: PaymentMethod;
  currency?: string;
  merchant_reference?: string;
  /** the operator's search: one collection by its gateway_reference, a customer's by account_number */
  gateway_reference?: string;
  account_number?: string;
  /** inclusive bounds on created_at */
  from?: Date;
  to?: Date;
  business_id?: number;
}

const DAY_MS = 86_400_000;

/**
 * The filters as one formatted condition (`TRUE` when there are none). The columns it names exist in
 * both collections and collection_counts, except merchant_reference, gateway_reference, account_number
 * and created_at, so `byDay` leaves out from/to for the counts, which filter on day instead (and a
 * search by a reference or an account is counted from collections).
 *
 * Why formatted parts and not one constant .sql file: a list's filters combine freely, and each
 * combination is a different index choice. One constant text with NULL guards (`$1 IS NULL OR ...`)
 * would be planned once, generically, and scan where the condition given needs an index. These reads
 * are not on the hot path: a list is not one of the writes that are prepared (docs/layout.md).
 */
export function filterWhere(f: CollectionFilters, o: { byDay?: boolean } = {}): string {
  const where: string[] = [];
  const add = (sql: string, v: unknown) => where.push(pgp.as.format(sql, [v]));
  if (f.business_id !== undefined) add('business_id = $1', f.business_id);
  if (f.status) add('status = $1', f.status);
  if (f.payment_method) add('payment_method = $1', f.payment_method);
  if (f.currency) add('request_currency = $1', f.currency);
  if (f.merchant_reference) add('merchant_reference = $1', f.merchant_reference);
  if (f.gateway_reference) add('gateway_reference = $1', f.gateway_reference);
  if (f.account_number) add('account_number = $1', f.account_number);
  if (!o.byDay && f.from) add('created_at >= $1', f.from);
  if (!o.byDay && f.to) add('created_at <= $1', f.to);
  return where.length ? where.join(' AND ') : 'TRUE';
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

/** The statement that counts the collections matching `f`, exactly, in one snapshot. */
export function collectionCountSql(f: CollectionFilters): string {
  // one collection per business at most (one in all by gateway_reference), or one customer's: their
  // indexes answer at once, and collection_counts has no such columns
  if (f.merchant_reference || f.gateway_reference || f.account_number) return `SELECT count(*) AS total FROM collections WHERE ${filterWhere(f)}`;
  const split = splitDays(f.from, f.to);
  const parts: string[] = [];
  if (split.days) {
    const day: string[] = [];
    if (split.fromDay) day.push(pgp.as.format('day >= $1::date', [split.fromDay]));
    if (split.toDay) day.push(pgp.as.format('day < $1::date', [split.toDay]));
    parts.push(`(SELECT COALESCE(SUM(n), 0) FROM collection_counts WHERE ${[filterWhere(f, { byDay: true }), ...day].join(' AND ')})`);
  }
  const noRange = { ...f, from: undefined, to: undefined };
  for (const e of split.edges) {
    const range = e.lt ? pgp.as.format('created_at >= $1 AND created_at < $2', [e.gte, e.lt]) : pgp.as.format('created_at >= $1 AND created_at <= $2', [e.gte, e.lte]);
    parts.push(`(SELECT count(*) FROM collections WHERE ${filterWhere(noRange)} AND ${range})`);
  }
  return `SELECT (${parts.length ? parts.join(' + ') : '0'})::bigint AS total`;
}

export async function countCollections(db: Db, f: CollectionFilters): Promise<number> {
  const { total } = await db.one<{ total: bigint }>(collectionCountSql(f));
  return Number(total);
}

/**
 * Folds the per-session slots of the days before `today` (UTC) into slot 0, in one statement (so every
 * count stays exact while it runs); returns how many slot rows it folded.
 */
export async function foldPastCounts(db: Db, today: Date): Promise<number> {
  const { folded } = await db.one<{ folded: number }>(
    `WITH gone AS (DELETE FROM collection_counts WHERE day < $1::date AND slot <> 0 RETURNING *),
     kept AS (INSERT INTO collection_counts AS k (business_id, day, status, payment_method, request_currency, slot, n)
       SELECT business_id, day, status, payment_method, request_currency, 0, SUM(n) FROM gone
       GROUP BY business_id, day, status, payment_method, request_currency ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (business_id, day, status, payment_method, request_currency, slot) DO UPDATE SET n = k.n + EXCLUDED.n)
     SELECT count(*)::int AS folded FROM gone`,
    [dayOf(today.getTime())],
  );
  return folded;
}
