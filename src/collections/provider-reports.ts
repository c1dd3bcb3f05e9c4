// Provider reports (the sandbox simulator's decisions, stored with the collection as provider_events):
// applied when due, in batches, each batch one transaction through the one move path; a collection's
// first report in due order moves it, the later ones change nothing.
import type { Base } from '../base';
import { bound, hotSqlFile } from '../db';
import type { Tx } from '../db';
import type { CollectionRow, FinalStatus } from '../domain/collection';
import { MISSED } from './move-batch';
import type { MoveAsk } from './move-batch';
import type { StateChanges } from './state-change';

export interface DueReport {
  id: bigint;
  collection_id: bigint;
  outcome: FinalStatus;
  message: string | null;
}

/** provider reports applied per transaction by the report worker */
const REPORT_BATCH = 200;

/** The report worker's claim (sql/claim-reports.sql): a constant text, prepared on a real server. */
const CLAIM_REPORTS_SQL = hotSqlFile(__dirname, 'claim-reports.sql');

/** Connections in the database pool (1 on the embedded database). */
export function poolSize(db: Base['db']): number {
  return (db.$pool as unknown as { options: { max: number } }).options.max;
}

export class ProviderReports {
  constructor(
    private readonly s: Base,
    private readonly changes: StateChanges,
  ) {}

  /**
   * Due provider reports in batches, each batch one transaction: claimed with SKIP LOCKED (so batches
   * and processes share the work), applied, marked processed together. Several batches run at once, on
   * half the database pool (one on the embedded database's single session): one commit per batch and
   * parallel lanes keep the worker ahead of the accepted rate (measured by `npm run bench`).
   */
  async processProviderEvents(): Promise<number> {
    const lanes = Math.max(1, Math.floor(poolSize(this.s.db) / 2));
    const per = Math.ceil(REPORT_BATCH / lanes);
    const counts = await Promise.all(Array.from({ length: lanes }, () => this.applyDueReports(per)));
    return counts.reduce((a, b) => a + b, 0);
  }

  private async applyDueReports(limit: number): Promise<number> {
    const { count, moved } = await this.s.db.tx(async (t) => {
      const reports = await t.any<DueReport>(bound(t, CLAIM_REPORTS_SQL, { now: this.s.now(), limit }));
      return { count: reports.length, moved: await this.applyReportsIn(t, reports) };
    });
    this.changes.finished(moved);
    if (moved.length > 0) {
      this.s.kick('webhooks');
      this.s.kick('emails');
    }
    return count;
  }

  /** The one path by which stored provider reports change state: applied in order, then marked processed. */
  async applyReportsIn(t: Tx, reports: DueReport[]): Promise<CollectionRow[]> {
    const moved: CollectionRow[] = [];
    if (reports.length === 0) return moved;
    // Each report moves its collection from PENDING, so only a collection's first report (in the claim's
    // order) can move it: the others find it moved, or not PENDING as the first did. The firsts go as one
    // batch through the one move path (it locks the rows in id order, as every batch does); a move whose
    // guard missed is read and tried again.
    const firsts = new Map<bigint, MoveAsk>();
    for (const r of reports) {
      if (!firsts.has(r.collection_id)) firsts.set(r.collection_id, { collectionId: r.collection_id, outcome: r.outcome, message: r.message ?? undefined, from: 'PENDING' });
    }
    for (let asks = [...firsts.values()]; asks.length > 0; ) {
      const answers = await this.changes.moveOnce(t, asks);
      for (const row of answers) if (row && row !== MISSED) moved.push(row);
      asks = asks.filter((_, i) => answers[i] === MISSED);
    }
    await t.none('UPDATE provider_events SET processed_at = $2 WHERE id = ANY($1::bigint[])', [reports.map((r) => r.id), this.s.now()]);
    return moved;
  }
}
