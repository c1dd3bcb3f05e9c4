// Request-to-pay's write with group commit (GroupCommit, src/db/batcher.ts): requests that arrive while
// earlier ones are being written wait and go together in one statement (sql/create.sql, a batch of arrays:
// one element per request), each answered with its own row once that statement has committed. A request
// alone is written at once, as a batch of one; inside an open operator change, at once and alone.
import { START_EMAILS_CTE } from '../notifications/notifications';
import { bound, hotSqlFile } from '../db';
import type { Db, Queryable } from '../db';
import type { Logger } from '../log';
import { arrayLiteral } from '../db/array-literal';
import { GroupCommit } from '../db/batcher';
import type { CollectionRow } from '../domain/collection';

/** The request-to-pay write (sql/create.sql): one constant text for any batch, prepared on a real server. */
const CREATE_SQL = hotSqlFile(__dirname, 'create.sql', { startEmails: START_EMAILS_CTE });

/** create.sql's parameters that carry the batch's emails, flattened: each email's owner is its request's place. */
const EMAIL_PARAMS = ['email_owners', 'email_kinds', 'email_recipients', 'email_subjects', 'email_texts'];
/** create.sql's parameters with one element per request */
const ROW_PARAMS = CREATE_SQL.params.filter((p) => !EMAIL_PARAMS.includes(p));
const ROW_PARAM_SET = new Set(ROW_PARAMS);

/** One request's values for create.sql: one value per row parameter, and its start emails. */
export interface CreateValues {
  row: Readonly<Record<string, unknown>>;
  emails: readonly { kind: string; recipient: string; subject: string; text: string }[];
}

/**
 * What create.sql answers for one request: n_ (its place in the batch), current_ (its configuration guard
 * held), created_ (true: inserted; false: the existing row holding its merchant_reference; null: taken by
 * a row the statement could not see, another transaction's or another request's of the same batch) and
 * the row. The caller takes the row apart from the three once (a copy of a 45-column row per request).
 */
export type CreateAnswer = CollectionRow & { n_: string | number | bigint; current_: boolean; created_: boolean | null };

/**
 * create.sql's values for a batch: every row parameter as an array literal in the batch's order, emails
 * flattened (arrayLiteral: the text the driver would make of the arrays, made with fewer copies).
 */
export function batchValues(batch: readonly CreateValues[]): Record<string, string> {
  for (const v of batch) {
    const names = Object.keys(v.row);
    if (names.length !== ROW_PARAMS.length || names.some((k) => !ROW_PARAM_SET.has(k))) {
      const missing = ROW_PARAMS.filter((p) => !(p in v.row));
      const unknown = names.filter((k) => !ROW_PARAM_SET.has(k));
      throw new Error(`${CREATE_SQL.name}: missing ${missing.join(', ') || 'none'}; unknown ${unknown.join(', ') || 'none'}`);
    }
  }
  const values: Record<string, string> = {};
  for (const p of ROW_PARAMS) values[p] = arrayLiteral(batch.map((v) => v.row[p]));
  const owners: number[] = [];
  const kinds: string[] = [];
  const recipients: string[] = [];
  const subjects: string[] = [];
  const texts: string[] = [];
  batch.forEach((v, i) => {
    for (const e of v.emails) {
      owners.push(i + 1);
      kinds.push(e.kind);
      recipients.push(e.recipient);
      subjects.push(e.subject);
      texts.push(e.text);
    }
  });
  values.email_owners = arrayLiteral(owners);
  values.email_kinds = arrayLiteral(kinds);
  values.email_recipients = arrayLiteral(recipients);
  values.email_subjects = arrayLiteral(subjects);
  values.email_texts = arrayLiteral(texts);
  return values;
}

/** Runs create.sql for `batch` on `q`: one answer per request, in the batch's order. */
async function writeBatch(q: Queryable, batch: readonly CreateValues[]): Promise<CreateAnswer[]> {
  const rows = await q.any<CreateAnswer>(bound(q, CREATE_SQL, batchValues(batch)));
  if (rows.length !== batch.length || rows.some((r, i) => Number(r.n_) !== i + 1)) {
    throw new Error(`${CREATE_SQL.name}: ${batch.length} requests answered ${rows.length} rows out of order`);
  }
  return rows;
}

/** Request-to-pay's writes with group commit: `write(values)` answers the request's own CreateAnswer. */
export type CreateBatches = GroupCommit<CreateValues, CreateAnswer>;

/** `lanes` batches written at once at most, each on a connection of the pool. */
export function createBatches(base: { readonly db: Db; log: Logger }, lanes: number): CreateBatches {
  return new GroupCommit(base, lanes, writeBatch, 'request-to-pay');
}
