// Expiry (docs/contract/states.md): a collection still PENDING past PENDING_TTL_SECONDS becomes EXPIRED,
// unless it holds a provider report received before its deadline (that report is applied instead).
import type { Base } from '../base';
import { sqlFile } from '../db';
import type { ProviderReports, DueReport } from './provider-reports';
import type { CollectionRow } from '../domain/collection';
import type { StateChanges } from './state-change';

const BATCH = 100;
const EXPIRY_DUE_SQL = sqlFile(__dirname, 'expiry-due.sql');

export class Expiry {
  constructor(
    private readonly s: Base,
    private readonly changes: StateChanges,
    private readonly reports: ProviderReports,
  ) {}

  /**
   * PENDING past PENDING_TTL_SECONDS becomes EXPIRED, unless it holds a provider report received before
   * its deadline: that report is applied instead (docs/contract/states.md), whatever the report worker's lag. A
   * report the report worker holds right now is left to it (it applies it once this commits). Where a
   * real processor holds the request, reconciliation asks it once more first (ProcessorRequestService).
   * Returns how many collections left PENDING.
   */
  async expireDue(): Promise<number> {
    const finished: CollectionRow[] = [];
    const handled = await this.s.db.tx(async (t) => {
      const due = await t.any<{ id: bigint; report_id: bigint | null }>(EXPIRY_DUE_SQL, { now: this.s.now(), limit: BATCH });
      let moved = 0;
      for (const c of due) {
        if (c.report_id === null) {
          const row = await this.changes.move(t, c.id, 'EXPIRED');
          if (row) finished.push(row);
          moved += 1;
          continue;
        }
        const report = await t.oneOrNone<DueReport>(
          'SELECT id, collection_id, outcome, message FROM provider_events WHERE id = $1 AND processed_at IS NULL FOR UPDATE SKIP LOCKED',
          [c.report_id],
        );
        if (!report) continue;
        finished.push(...(await this.reports.applyReportsIn(t, [report])));
        moved += 1;
      }
      return moved;
    });
    this.changes.finished(finished);
    if (finished.length > 0) {
      this.s.kick('webhooks');
      this.s.kick('emails');
    }
    return handled;
  }
}
