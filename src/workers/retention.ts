// Retention: the history that may be deleted once it is old enough. Kept for ever: the ledger (journals,
// postings, holds: the books), collections and their notifications (one or two rows per collection,
// needed to re-send and to number what follows). Deleted after their period (0 = kept for ever): the
// delivery log of a notification that is finished (delivered or given up), emails that were sent or
// given up (they hold personal data and the text once sent), audit entries, and FX quotes once expired
// (a collection keeps the price it was converted at). Deleted oldest first,
// in bounded batches, so a worker never holds long locks and a large backlog drains over several runs. The
// deletes are the owning wings' own (notifications, people, merchants), handed in by src/wiring.ts.
import type { RetentionDays } from '../config';
import { DAY_MS } from '../domain/time';
import type { WorkerSpec } from './loops';

/** rows deleted by one statement */
const BATCH_ROWS = 1000;
/** statements per table and run: at most 20 000 rows per table every interval */
const MAX_BATCHES = 20;
const INTERVAL_MS = 10 * 60_000;


/** How each kind of history is deleted, by the wing that owns it: up to `limit` rows older than `before`, oldest first. */
export type Deleters = Record<keyof RetentionDays, (before: Date, limit: number) => Promise<number>>;

export class RetentionService {
  constructor(
    private readonly deleters: Deleters,
    private readonly days: RetentionDays,
    private readonly now: () => Date,
  ) {}

  /** Deletes what has passed its retention period (up to the per-run bound); returns the rows deleted. */
  async prune(): Promise<number> {
    let deleted = 0;
    for (const kind of Object.keys(this.deleters) as (keyof RetentionDays)[]) {
      const days = this.days[kind];
      if (days === 0) continue;
      const before = new Date(this.now().getTime() - days * DAY_MS);
      for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
        const rowCount = await this.deleters[kind](before, BATCH_ROWS);
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
