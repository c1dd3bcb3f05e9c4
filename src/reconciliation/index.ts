// Reconciliation (docs/reconciliation.md): the processors' statements taken in (intake.ts), matched into
// items against our collections, the operator's resolutions (resolutions.ts), and what operators read: the
// statements of a MID, its items per day with the totals of both sides, the items as CSV, and the MID's
// settings (the theirs_missing deadline and the approval threshold).
import { sqlFiles } from '../db';
import type { Status } from '../domain/collection';
import { toApi } from '../domain/money';
import { apiTime } from '../domain/time';
import { AppError } from '../errors';
import { amountCell, csvLines, textCell, timeCell } from '../reports/csv';
import type { Sink } from '../reports/csv';
import type { WorkerSpec } from '../workers/loops';
import { StatementIntake } from './intake';
import type { Intake, StatementRecord } from './intake';
import { Resolutions } from './resolutions';
import { SETTLEMENT_PULL_INTERVAL_MS, SettlementPull } from './settlement-pull';
import type { PullParts } from './settlement-pull';
import type { ItemRow, ResolutionParts, ResolveAction } from './resolutions';
import type { LineKind } from './statement-lines';

const SQL = sqlFiles(__dirname, ['items', 'day-totals']);
/** How often the worker looks for what the processors have not reported past the deadline (days, so hourly is soon enough). */
export const MISSING_INTERVAL_MS = 3_600_000;
/** Items per page of the list, and per query of the CSV export. */
export const MAX_ITEMS_PAGE = 500;

/** An item as the list reads it (sql/items.sql): its day as text (YYYY-MM-DD, UTC), its collection's reference and state, and what it is of (a collection, a refund, a disbursement) by our reference. */
export type ItemListRow = ItemRow & {
  day: string;
  gateway_reference: string | null;
  collection_status: Status | null;
  line_kind: LineKind | null;
  subject: 'collection' | 'refund' | 'disbursement' | null;
  subject_reference: string | null;
};

/** A MID's day (dayTotals): each currency's totals on both sides, in minor units, and how many items are in each state. */
export interface DayTotals {
  currencies: { currency: string; theirs_minor: bigint; ours_minor: bigint }[];
  states: Record<string, number>;
}

export interface ItemQuery {
  day: string | null;
  state: string | null;
  after: bigint;
  limit: number;
}

export interface Settings {
  mid_id: number;
  theirs_missing_days: number;
  approval_threshold_minor: bigint | null;
}

const dayText = (d: string) => d.slice(0, 10);

export function itemRecord(r: ItemListRow) {
  const amount = (m: bigint | null) => (m === null ? null : toApi(m));
  return {
    id: Number(r.id),
    mid_id: r.mid_id,
    business_id: r.business_id,
    day: dayText(r.day),
    state: r.state,
    reference: r.reference,
    line_kind: r.line_kind,
    subject: r.subject,
    subject_reference: r.subject_reference,
    gateway_reference: r.gateway_reference,
    collection_status: r.collection_status,
    ours_amount: amount(r.ours_minor),
    ours_currency: r.ours_currency,
    theirs_amount: amount(r.theirs_minor),
    theirs_currency: r.theirs_currency,
    resolution: r.resolution,
    action: r.action,
    reason: r.reason,
    requested_by: r.requested_by,
    requested_at: r.requested_at === null ? null : apiTime(r.requested_at),
    approved_by: r.approved_by,
    resolved_at: r.resolved_at === null ? null : apiTime(r.resolved_at),
    created_at: apiTime((r as unknown as { created_at: Date }).created_at),
  };
}

export function statementRecord(s: StatementRecord) {
  return {
    id: Number(s.id), mid_id: s.mid_id, source: s.source, content_hash: s.content_hash, line_count: s.line_count,
    first_at: s.first_at === null ? null : apiTime(s.first_at), last_at: s.last_at === null ? null : apiTime(s.last_at),
    taken_by: s.taken_by, created_at: apiTime(s.created_at),
  };
}

export class ReconciliationService {
  readonly intake: StatementIntake;
  readonly resolutions: Resolutions;
  readonly settlements: SettlementPull;

  constructor(private readonly s: ResolutionParts & PullParts) {
    this.intake = new StatementIntake(s);
    this.resolutions = new Resolutions(s);
    this.settlements = new SettlementPull(s, this.intake);
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'reconciliation-missing', intervalMs: MISSING_INTERVAL_MS, run: () => this.intake.missingDue() },
      { name: 'reconciliation-settlements', intervalMs: SETTLEMENT_PULL_INTERVAL_MS, run: () => this.settlements.pull() },
    ];
  }

  upload(midId: number, chunks: AsyncIterable<Buffer | string>, by: string): Promise<Intake> {
    return this.intake.upload(midId, chunks, by);
  }

  resolve(midId: number, id: bigint, r: { action: ResolveAction; reason: string }, by: string): Promise<ItemRow> {
    return this.resolutions.resolve(midId, id, r, by);
  }

  approve(midId: number, id: bigint, by: string): Promise<ItemRow> {
    return this.resolutions.approve(midId, id, by);
  }

  /** NOT_FOUND when there is no MID `midId`. */
  async midExists(midId: number): Promise<void> {
    const mid = await this.s.db.oneOrNone('SELECT id FROM mids WHERE id = $1', [midId]);
    if (!mid) throw new AppError('NOT_FOUND', `No MID with id ${midId}`);
  }

  /** A MID's statements, newest first (at most 200). */
  async statements(midId: number): Promise<StatementRecord[]> {
    await this.midExists(midId);
    return this.s.db.any<StatementRecord>('SELECT * FROM reconciliation_statements WHERE mid_id = $1 ORDER BY id DESC LIMIT 200', [midId]);
  }

  /** A page of a MID's items (of a day, of a state), in id order after the cursor. */
  async items(midId: number, q: ItemQuery): Promise<ItemListRow[]> {
    await this.midExists(midId);
    return this.page(midId, q);
  }

  /** A page of items of a MID known to exist. */
  private page(midId: number, q: ItemQuery): Promise<ItemListRow[]> {
    return this.s.db.any<ItemListRow>(SQL.items, { midId, day: q.day, state: q.state, after: q.after, limit: Math.min(q.limit, MAX_ITEMS_PAGE) });
  }

  /**
   * The totals of a MID's day on both sides per currency (the processor's by its line's currency, ours by
   * ours_currency: sql/day-totals.sql), in currency order, and the items per state.
   */
  async dayTotals(midId: number, day: string): Promise<DayTotals> {
    const rows = await this.s.db.any<{ state: string | null; items: number | null; currency: string | null; theirs_minor: bigint | null; ours_minor: bigint | null }>(SQL.dayTotals, { midId, day });
    const totals: DayTotals = { currencies: [], states: {} };
    for (const r of rows) {
      if (r.currency !== null) totals.currencies.push({ currency: r.currency, theirs_minor: r.theirs_minor ?? 0n, ours_minor: r.ours_minor ?? 0n });
      else totals.states[r.state as string] = r.items as number;
    }
    return totals;
  }

  /** The MID's settings, its defaults when never set. */
  async settings(midId: number): Promise<Settings> {
    await this.midExists(midId);
    const row = await this.s.db.oneOrNone<Settings>('SELECT mid_id, theirs_missing_days, approval_threshold_minor FROM reconciliation_settings WHERE mid_id = $1', [midId]);
    return row ?? { mid_id: midId, theirs_missing_days: 3, approval_threshold_minor: null };
  }

  async setSettings(midId: number, s: { theirs_missing_days: number; approval_threshold_minor: bigint | null }, by: string): Promise<Settings> {
    await this.midExists(midId);
    return this.s.db.one<Settings>(
      `INSERT INTO reconciliation_settings (mid_id, theirs_missing_days, approval_threshold_minor, updated_by, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (mid_id) DO UPDATE SET theirs_missing_days = EXCLUDED.theirs_missing_days, approval_threshold_minor = EXCLUDED.approval_threshold_minor,
         updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
       RETURNING mid_id, theirs_missing_days, approval_threshold_minor`,
      [midId, s.theirs_missing_days, s.approval_threshold_minor, by, this.s.now()],
    );
  }

  /** A MID's items (of a day, of a state) as CSV, a page at a time: the caller checked the MID (`midExists`) once, before the file starts. */
  async writeCsv(midId: number, q: Omit<ItemQuery, 'after' | 'limit'>, sink: Sink): Promise<void> {
    await sink.write(csvLines([['id', 'day', 'state', 'reference', 'gateway_reference', 'ours_amount', 'ours_currency', 'theirs_amount', 'theirs_currency', 'resolution', 'action', 'reason', 'requested_by', 'approved_by', 'resolved_at']]));
    let after = 0n;
    for (;;) {
      const rows = await this.page(midId, { ...q, after, limit: MAX_ITEMS_PAGE });
      await sink.write(csvLines(rows.map((r) => [
        String(r.id), dayText(r.day), r.state, textCell(r.reference), r.gateway_reference,
        r.ours_currency === null ? null : amountCell(r.ours_minor, r.ours_currency), r.ours_currency,
        r.theirs_currency === null ? null : amountCell(r.theirs_minor, r.theirs_currency), r.theirs_currency,
        r.resolution, r.action, textCell(r.reason), r.requested_by, r.approved_by, timeCell(r.resolved_at),
      ])));
      if (rows.length < MAX_ITEMS_PAGE) return;
      after = rows[rows.length - 1].id;
    }
  }
}
