// The one path by which collections change state (docs/contract/states.md): a read of the rows and of
// everything their writes need (sql/read-for-move.sql), then one write guarded by the state as read
// (sql/move.sql) that also posts the ledger's journal, writes the notification and emails and, in the
// sandbox, the certification record. applyOutcome shares the write with the changes asked at the same
// moment (group commit, move-batch.ts); move runs it in the caller's transaction.
import type { Base } from '../base';
import { bound, hotSqlFile } from '../db';
import type { Queryable } from '../db';
import { STATUS_MESSAGES, isFinal } from '../domain/collection';
import type { CollectionRow, FinalStatus } from '../domain/collection';
import { AppError } from '../errors';
import { CREDIT_CTES, NO_CREDIT } from '../ledger/ledger';
import type { CreditContext, CreditValues } from '../ledger/ledger';
import type { Principal } from '../merchants/access-tokens';
import { STATUS_CHANGE_CTES } from '../notifications/notifications';
import type { Recipients } from '../notifications/notifications';
import { scenarioRecorded } from '../sandbox/certification';
import { MISSED, moveBatches } from './move-batch';
import type { MoveAsk, MoveBatches, MoveFrom, MoveTry } from './move-batch';
import type { CollectionParts } from './parts';
import type { CollectionQueries } from './queries';

/** What a move reads with the row (sql/read-for-move.sql): what its writes need. */
interface MoveExtras {
  credit_context: CreditContext | null;
  outbox_recipients: Recipients | null;
}

/** What a move reads (readForMoves): the row with what its writes need, and its place in the batch. */
type MoveRead = CollectionRow & MoveExtras & { n_: string | number | bigint };

/** A move's read and its write (sql/read-for-move.sql, sql/move.sql): constant texts, prepared on a real server. */
const READ_FOR_MOVE_SQL = hotSqlFile(__dirname, 'read-for-move.sql');
const moveSql = (links: string) => hotSqlFile(__dirname, 'move.sql', { credit: CREDIT_CTES, notices: STATUS_CHANGE_CTES, links });

/** One move's values for move.sql: its element of each per-move array, and its postings, holds and emails. */
interface PlannedMove {
  values: Record<string, unknown> & { taken: number };
  credit: CreditValues;
  emails: { email_kinds: string[]; email_recipients: string[]; email_subjects: string[]; email_texts: string[] };
}

/** move.sql's values for a batch: each per-move parameter as an array in the batch's order, the rest flattened with their owner's place. */
function moveValues(batch: readonly PlannedMove[]): Record<string, unknown[]> {
  const values: Record<string, unknown[]> = {};
  for (const name of Object.keys(batch[0].values)) values[name] = batch.map((m) => m.values[name]);
  const owned = <T>(of: (m: PlannedMove) => T[]) => batch.flatMap((m, i) => of(m).map(() => i + 1));
  values.posting_owners = owned((m) => m.credit.posting_amounts);
  values.posting_accounts = batch.flatMap((m) => m.credit.posting_accounts);
  values.posting_amounts = batch.flatMap((m) => m.credit.posting_amounts);
  values.posting_currencies = batch.flatMap((m) => m.credit.posting_currencies);
  values.posting_kinds = batch.flatMap((m) => m.credit.posting_kinds);
  values.hold_owners = owned((m) => m.credit.hold_amounts);
  values.hold_wallet_ids = batch.flatMap((m) => m.credit.hold_amounts.map(() => m.credit.hold_wallet_id));
  values.hold_buckets = batch.flatMap((m) => m.credit.hold_buckets);
  values.hold_amounts = batch.flatMap((m) => m.credit.hold_amounts);
  values.hold_release_ats = batch.flatMap((m) => m.credit.hold_release_ats);
  values.email_owners = owned((m) => m.emails.email_kinds);
  values.email_kinds = batch.flatMap((m) => m.emails.email_kinds);
  values.email_recipients = batch.flatMap((m) => m.emails.email_recipients);
  values.email_subjects = batch.flatMap((m) => m.emails.email_subjects);
  values.email_texts = batch.flatMap((m) => m.emails.email_texts);
  return values;
}

export class StateChanges {
  /** state changes outside a caller's transaction, with group commit (move-batch.ts) */
  private readonly moves: MoveBatches;
  /** the write (sql/move.sql), with the payment links' part handed in */
  private readonly moveStatement: ReturnType<typeof moveSql>;

  constructor(
    private readonly s: Base & CollectionParts,
    lanes: number,
    private readonly queries: CollectionQueries,
  ) {
    this.moves = moveBatches(s, lanes, (q, asks) => this.moveOnce(q, asks));
    this.moveStatement = moveSql(s.linkCompletionCtes);
  }

  /**
   * A provider's report (or the customer's answer on a hosted page): PENDING -> final, with its ledger
   * postings and notification rows, all or nothing, written with the other changes asked for at the same
   * moment (move-batch.ts). A repeat or a late report changes nothing and returns null.
   */
  async applyOutcome(collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    for (;;) {
      const row = await this.moves.write({ collectionId, outcome, message, from });
      if (row === MISSED) continue;
      if (row) {
        this.finished([row]);
        this.s.kick('webhooks');
        this.s.kick('emails');
      }
      return row;
    }
  }

  /** Counts collections that reached a final state, once their change has committed. */
  finished(rows: CollectionRow[]): void {
    for (const row of rows) this.s.figures.collectionFinished(row, this.s.db);
  }

  /**
   * A collection's state change through the caller's transaction `q` (applyOutcome writes the others): the
   * same read and write as a batch's, for a batch of one (moveOnce). Not `from` when read: null. The guard
   * found the row changed since the read: read again, and so on until it moves or is no longer `from`.
   * Returns the row as the change left it, before its notification took a sequence number.
   */
  async move(q: Queryable, collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    for (;;) {
      const [row] = await this.moveOnce(q, [{ collectionId, outcome, message, from }]);
      if (row !== MISSED) return row;
    }
  }

  /**
   * The one path by which collections change state: two statements, through `q` (the database, each
   * statement on its own, atomic without a transaction; or the caller's transaction), for any number of
   * moves. A read (no lock) of the rows and of everything their writes need (sql/read-for-move.sql); then
   * one write (sql/move.sql) whose first CTE is the state changes, each guarded to apply only to its row as
   * read (still `from`, same notification_seq and API token), and whose other CTEs (journals, postings,
   * holds, notifications, emails, certification) write only from the moved rows. The writes are planned from
   * the read rows: amounts, fee, currency and method never change after creation, and the guard pins what
   * else they depend on. One answer per ask, in their order: the row as the change left it (before its
   * notification took a sequence number), null (not `from` when read), or MISSED (its guard found the row
   * changed since the read; a collection asked twice in one batch moves once, the other ask misses).
   */
  async moveOnce(q: Queryable, asks: readonly MoveAsk[]): Promise<MoveTry[]> {
    // in id order, so the write locks the batch's rows as every other batch does
    const order = asks.map((_, i) => i).sort((a, b) => (asks[a].collectionId < asks[b].collectionId ? -1 : asks[a].collectionId > asks[b].collectionId ? 1 : a - b));
    const sorted = order.map((i) => asks[i]);
    const reads = await this.readForMoves(q, sorted);
    const writes: { ask: MoveAsk; place: number; read: MoveRead }[] = [];
    reads.forEach((read, place) => {
      if (read && read.status === sorted[place].from) writes.push({ ask: sorted[place], place, read });
    });
    const moved = writes.length === 0 ? [] : await this.writeMoves(q, writes);
    const answers: MoveTry[] = asks.map(() => null);
    writes.forEach((w, k) => {
      answers[order[w.place]] = moved[k];
    });
    return answers;
  }

  /** The collections of `asks` with what a move of each to its outcome needs (no lock); null where none, in their order. */
  private async readForMoves(q: Queryable, asks: readonly MoveAsk[]): Promise<(MoveRead | null)[]> {
    const rows = await q.any<MoveRead>(
      bound(q, READ_FOR_MOVE_SQL, { ids: asks.map((a) => a.collectionId), credits: asks.map((a) => a.outcome === 'COMPLETED') }),
    );
    const reads: (MoveRead | null)[] = asks.map(() => null);
    for (const r of rows) reads[Number(r.n_) - 1] = r;
    return reads;
  }

  /** The moves' write from what was read: one answer each, in their order, the moved row or MISSED. */
  private async writeMoves(q: Queryable, writes: readonly { ask: MoveAsk; read: MoveRead }[]): Promise<MoveTry[]> {
    const now = this.s.now();
    const planned = await Promise.all(writes.map(({ ask, read }) => this.planMove(q, read, ask, now)));
    const done = await q.any<CollectionRow & { credited_: boolean; n_: string | number | bigint }>(bound(q, this.moveStatement, moveValues(planned)));
    const answers: MoveTry[] = writes.map(() => MISSED);
    for (const { credited_: credited, n_: place, ...moved } of done) {
      const p = planned[Number(place) - 1];
      moved.notification_seq -= p.values.taken;
      if (!credited) this.s.ledger.creditSkipped(moved);
      answers[Number(place) - 1] = moved;
    }
    return answers;
  }

  /** One move's values for move.sql, from its read row. */
  private async planMove(q: Queryable, read: MoveRead, ask: MoveAsk, now: Date): Promise<PlannedMove> {
    const { credit_context: creditContext, outbox_recipients: recipients, n_: _place, ...before } = read;
    // The row as the state change will leave it, before its notification takes a sequence number.
    const row: CollectionRow = {
      ...before, status: ask.outcome, message: ask.message ?? STATUS_MESSAGES[ask.outcome], updated_at: now,
      // a late completion's time (EXPIRED, FAILED or CANCELLED -> COMPLETED); a reversal keeps the row's
      late_completed_at: ask.from === 'PENDING' ? null : ask.from === 'COMPLETED' ? before.late_completed_at : now,
    };
    const taken = row.api_token_id === null ? 0 : 1;
    const credit = ask.outcome === 'COMPLETED' ? await this.s.ledger.creditValues(q, row, creditContext) : NO_CREDIT;
    const { email_kinds, email_recipients, email_subjects, email_texts, ...notice } = this.s.notifications.statusChangeValues(
      row, taken ? row.notification_seq + 1 : null, recipients,
    );
    return {
      values: {
        id: row.id, from: ask.from, notification_seq: row.notification_seq, api_token_id: row.api_token_id,
        status: row.status, message: row.message, updated_at: row.updated_at, taken, late_completed_at: row.late_completed_at,
        credit: credit.credit, credited_at: credit.credited_at, ...notice, scenario: scenarioRecorded(this.s.config, row),
      },
      credit,
      emails: { email_kinds, email_recipients, email_subjects, email_texts },
    };
  }

  /** Sandbox only: drive a PENDING collection as its provider would. */
  async simulate(p: Principal, gatewayReference: string, outcome: FinalStatus): Promise<CollectionRow> {
    const row = await this.queries.get(gatewayReference, p.businessId);
    if (isFinal(row.status)) throw new AppError('INVALID_STATE', `The collection is already ${row.status}`);
    const moved = await this.applyOutcome(row.id, outcome, `${STATUS_MESSAGES[outcome]} (simulated)`);
    if (!moved) throw new AppError('INVALID_STATE', 'The collection changed state meanwhile');
    return moved;
  }
}
