// Retention: the history that may be deleted once it is old enough. Kept for ever: the ledger (journals,
// postings, holds: the books), collections and their notifications (one or two rows per collection,
// needed to re-send and to number what follows). Deleted after their period (0 = kept for ever): the
// delivery log of a notification that is finished (delivered or given up), emails that were sent or
// given up (they hold personal data and the text once sent), and audit entries. Deleted oldest first,
// in bounded batches, so a worker never holds long locks and a large backlog drains over several runs.
import type { RetentionDays } from '../config';
import type { Db } from '../db';
import type { WorkerSpec } from './loops';

/** rows deleted by one statement */
const BATCH_ROWS = 1000;
/** statements per table and run: at most 20 000 rows per table every interval */
const MAX_BATCHES = 20;
const INTERVAL_MS = 10 * 60_000;
const DAY_MS = 86_400_000;


/** One statement per kind of history: deletes up to $2 of its rows older than $1, oldest first. */
const DELETE_OLDER: Record<keyof RetentionDays, string> = {
  deliveryAttempts: `DELETE FROM notification_attempts WHERE id IN (
      SELECT a.id FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id
      WHERE a.at < $1 AND (n.delivered_at IS NOT NULL OR n.gave_up_at IS NOT NULL)
      ORDER BY a.at LIMIT $2)`,
  emails: `DELETE FROM emails WHERE id IN (
      SELECT id FROM emails WHERE created_at < $1 AND (sent_at IS NOT NULL OR gave_up_at IS NOT NULL)
      ORDER BY created_at LIMIT $2)`,
  audit: `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 ORDER BY at LIMIT $2)`,
};

export class RetentionService {
  constructor(
    private readonly db: Db,
    private readonly days: RetentionDays,
    private readonly now: () => Date,
  ) {}

  /** Deletes what has passed its retention period (up to the per-run bound); returns the rows deleted. */
  async prune(): Promise<number> {
    let deleted = 0;
    for (const kind of Object.keys(DELETE_OLDER) as (keyof RetentionDays)[]) {
      const days = this.days[kind];
      if (days === 0) continue;
      const before = new Date(this.now().getTime() - days * DAY_MS);
      for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
        const { rowCount } = await this.db.result(DELETE_OLDER[kind], [before, BATCH_ROWS]);
        deleted += rowCount;
        if (rowCount < BATCH_ROWS) break;
      }
    }
    return deleted;
  }

  workers(): WorkerSpec[] {
    return [{ name: 'retention', intervalMs: INTERVAL_MS, run: () => this.prune() }];
  }
}
