// Request-to-pay's write with group commit (issue 25): requests that arrive while earlier ones are being
// written wait and go together in one statement (sql/create.sql, a batch of arrays: one element per
// request), each answered with its own row once that statement has committed (src/db/batcher.ts). A
// request alone is written at once, as a batch of one. Inside an open operator change the write goes to
// the change's transaction at once, alone: a batch never mixes a change's request with others.
import { START_EMAILS_CTE } from '../notifications/notifications';
import { bound, hotSqlFile } from '../db';
import type { Db, Queryable } from '../db';
import type { Logger } from '../log';
import { arrayLiteral } from '../db/array-literal';
import { Batcher } from '../db/batcher';
import { inOpenChange } from '../db/change';
import { countedApart, takeOver } from '../db/outcome';
import type { WritesApart } from '../db/outcome';
import type { CollectionRow } from '../domain/collection';

/** The request-to-pay write (sql/create.sql): one constant text for any batch, prepared on a real server. */
const CREATE_SQL = hotSqlFile(__dirname, 'create.sql', { startEmails: START_EMAILS_CTE });

/** create.sql's parameters that carry the batch's emails, flattened: each email's owner is its request's place. */
const EMAIL_PARAMS = ['email_owners', 'email_kinds', 'email_recipients', 'email_subjects', 'email_texts'];
/** create.sql's parameters with one element per request */
const ROW_PARAMS = CREATE_SQL.params.filter((p) => !EMAIL_PARAMS.includes(p));
const ROW_PARAM_SET = new Set(ROW_PARAMS);

/** The most requests in one statement. */
const MAX_BATCH = 64;

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

interface Job {
  values: CreateValues;
  /** the writes of the batch that carried it, for its request to count as its own */
  apart: WritesApart | null;
}

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

export class CreateBatches {
  private readonly batcher: Batcher<Job, CreateAnswer>;

  /**
   * `base.db` is read at each write (the pool, or an open change's transaction); `lanes` batches are
   * written at once at most, each on a connection of the pool.
   */
  constructor(
    private readonly base: { readonly db: Db; log: Logger },
    lanes: number,
  ) {
    this.batcher = new Batcher((jobs) => this.written(jobs), { maxBatch: MAX_BATCH, maxRunning: lanes }, (err, size) =>
      base.log.warn('request-to-pay batch refused, written again one by one', { size, error: (err as Error).message }),
    );
  }

  /** Writes one request's collection with whatever else is waiting; its own answer once committed. */
  async write(values: CreateValues): Promise<CreateAnswer> {
    if (inOpenChange()) return (await writeBatch(this.base.db, [values]))[0];
    const job: Job = { values, apart: null };
    try {
      return await this.batcher.add(job);
    } finally {
      // the batch's statement was sent for this request too: lost with the connection, its outcome is unknown
      if (job.apart) takeOver(job.apart);
    }
  }

  private written(jobs: Job[]): Promise<CreateAnswer[]> {
    const apart = countedApart(() => writeBatch(this.base.db, jobs.map((j) => j.values)));
    for (const j of jobs) j.apart = apart;
    return apart.done;
  }
}
