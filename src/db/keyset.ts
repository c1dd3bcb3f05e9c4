// One builder for every paged list: keyset (cursor) paging on the list's own sort key, which never
// repeats or skips a row while rows are being inserted, with page/offset kept for compatibility.
// A cursor is the sort key of the last row of a page, as JSON made by PostgreSQL, in base64url: it
// is opaque to clients, checked here before it reaches SQL, and compared in SQL with its exact types.
import { AppError } from '../errors';
import type { Db, Tx } from './index';

/** A column of the sort key: an output column of the list's query, with its PostgreSQL type. */
export interface KeyColumn {
  column: string;
  type: 'bigint' | 'timestamptz' | 'text';
}

export interface ListQuery {
  /** the whole list with its filters and columns, without ORDER BY, LIMIT or OFFSET */
  sql: string;
  values: unknown[];
  /** a unique sort key (its last column unique on its own, e.g. the id) */
  key: KeyColumn[];
  direction: 'ASC' | 'DESC';
  /** a faster exact count of the same rows than countRows (e.g. a counter table) */
  count?: () => Promise<number>;
}

/** What a caller asked for: a cursor from a previous page, or an offset (page/offset paging). */
export interface PageRequest {
  limit: number;
  offset: number;
  cursor: string | null;
}

export interface ListPage<R> {
  rows: R[];
  total: number;
  /** the cursor of the page after this one; null when this is the last page */
  nextCursor: string | null;
}

const MAX_TEXT_KEY_LENGTH = 256;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:\d{2})?)$/;

/** PostgreSQL's bigint: 19 digits are not all of them (9223372036854775808 is out of range, a 500). */
const fitsBigint = (text: string) => BigInt(text) >= -(2n ** 63n) && BigInt(text) < 2n ** 63n;

function keyValueOk(value: unknown, type: KeyColumn['type']): boolean {
  switch (type) {
    case 'bigint':
      return (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^-?\d{1,19}$/.test(value) && fitsBigint(value));
    case 'timestamptz':
      return typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));
    case 'text':
      return typeof value === 'string' && value.length <= MAX_TEXT_KEY_LENGTH && !value.includes('\u0000');
  }
}

const badCursor = () => new AppError('VALIDATION_ERROR', undefined, [{ field: 'cursor', message: 'is not a cursor this list gave out' }]);

/** The cursor's JSON text, after checking it is a key of this list (so nothing odd reaches SQL). */
export function decodeCursor(cursor: string, key: KeyColumn[]): string {
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw badCursor();
  const json = Buffer.from(cursor, 'base64url').toString('utf8');
  let values: unknown;
  try {
    values = JSON.parse(json);
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(values) || values.length !== key.length || !values.every((v, i) => keyValueOk(v, key[i].type))) throw badCursor();
  return json;
}

export function encodeCursor(keyJson: string): string {
  return Buffer.from(keyJson, 'utf8').toString('base64url');
}

/**
 * How many rows the list has. Kept apart so that a faster count (an estimate, a counter table) can
 * replace it without touching paging.
 */
export async function countRows(db: Db | Tx, q: ListQuery): Promise<number> {
  const { total } = await db.one<{ total: number }>(`SELECT count(*)::int AS total FROM (${q.sql}) AS list`, q.values);
  return total;
}

/** One page of a list: at most `limit` rows after the cursor (or from the offset), and the next cursor. */
export async function listPage<R extends object>(db: Db | Tx, q: ListQuery, page: PageRequest): Promise<ListPage<R>> {
  const values = [...q.values];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const cols = q.key.map((k) => `list.${k.column}`);
  const comparison = q.direction === 'DESC' ? '<' : '>';
  let after = '';
  if (page.cursor !== null) {
    const json = param(decodeCursor(page.cursor, q.key));
    const typed = q.key.map((k, i) => `(${json}::json->>${i})::${k.type}`);
    after = `WHERE (${cols.join(', ')}) ${comparison} (${typed.join(', ')})`;
  }
  const order = cols.map((c) => `${c} ${q.direction}`).join(', ');
  const limit = param(page.limit + 1);
  const offset = page.cursor === null ? `OFFSET ${param(page.offset)}` : '';
  const sql = `SELECT list.*, json_build_array(${cols.join(', ')})::text AS page_key
    FROM (${q.sql}) AS list ${after} ORDER BY ${order} LIMIT ${limit} ${offset}`;
  const [fetched, total] = await Promise.all([db.any<R & { page_key: string }>(sql, values), q.count ? q.count() : countRows(db, q)]);
  const more = fetched.length > page.limit;
  const rows = fetched.slice(0, page.limit);
  const nextCursor = more ? encodeCursor(rows[rows.length - 1].page_key) : null;
  return { rows: rows.map(({ page_key: _key, ...row }) => row as unknown as R), total, nextCursor };
}

/** The sort key of lists in id order. */
export const BY_ID: KeyColumn[] = [{ column: 'id', type: 'bigint' }];
