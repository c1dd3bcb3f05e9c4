// The collections wing's door (docs/contract/collections.md, docs/contract/states.md): a collection's life.
// It builds the wing's flows and is what the rest of the service calls: request-to-pay
// (request-to-pay.ts), the one state change (state-change.ts), provider reports (provider-reports.ts),
// expiry (expiry.ts) and reads (queries.ts).
import type { Base } from '../base';
import type { Queryable } from '../db';
import type { ListPage, PageRequest } from '../db/keyset';
import type { CollectionRow, FinalStatus } from '../domain/collection';
import type { Principal } from '../merchants/access-tokens';
import type { PostingRow } from '../api-records/collection';
import type { WorkerSpec } from '../workers/loops';
import { foldPastCounts } from './counts';
import type { CollectionFilters } from './counts';
import { createBatches } from './create-batch';
import { Expiry } from './expiry';
import type { MoveFrom } from './move-batch';
import type { CollectionParts } from './parts';
import { poolSize, ProviderReports } from './provider-reports';
import { CollectionQueries } from './queries';
import { RequestToPay } from './request-to-pay';
import type { RequestToPayBody } from './request-to-pay';
import { StateChanges } from './state-change';

export type { CollectionFilters } from './counts';
export type { CollectionParts } from './parts';
export type { MoveFrom } from './move-batch';
export type { RequestToPayBody } from './request-to-pay';

/** How often the per-session count slots of past days are folded into one row (counts.ts). */
const FOLD_COUNTS_INTERVAL_MS = 10 * 60_000;

export class CollectionService {
  private readonly queries: CollectionQueries;
  private readonly requests: RequestToPay;
  private readonly changes: StateChanges;
  private readonly reports: ProviderReports;
  private readonly expiry: Expiry;

  constructor(private readonly s: Base & CollectionParts) {
    // at most half the pool, so the batches leave connections to every other statement
    const lanes = Math.max(1, Math.min(s.config.databaseBatchLanes, Math.floor(poolSize(s.db) / 2)));
    this.queries = new CollectionQueries(s);
    this.requests = new RequestToPay(s, createBatches(s, lanes), this.queries);
    this.changes = new StateChanges(s, lanes, this.queries);
    this.reports = new ProviderReports(s, this.changes);
    this.expiry = new Expiry(s, this.changes, this.reports);
  }

  requestToPay(p: Principal, body: RequestToPayBody): Promise<{ row: CollectionRow; replayed: boolean }> {
    return this.requests.requestToPay(p, body);
  }

  applyOutcome(collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    return this.changes.applyOutcome(collectionId, outcome, message, from);
  }

  move(q: Queryable, collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    return this.changes.move(q, collectionId, outcome, message, from);
  }

  finished(rows: CollectionRow[]): void {
    this.changes.finished(rows);
  }

  simulate(p: Principal, gatewayReference: string, outcome: FinalStatus): Promise<CollectionRow> {
    return this.changes.simulate(p, gatewayReference, outcome);
  }

  processProviderEvents(): Promise<number> {
    return this.reports.processProviderEvents();
  }

  expireDue(): Promise<number> {
    return this.expiry.expireDue();
  }

  byMerchantReference(businessId: number, merchantReference: string): Promise<CollectionRow | null> {
    return this.queries.byMerchantReference(businessId, merchantReference);
  }

  get(gatewayReference: string, businessId: number | null): Promise<CollectionRow> {
    return this.queries.get(gatewayReference, businessId);
  }

  list(f: CollectionFilters, page: PageRequest): Promise<ListPage<CollectionRow>> {
    return this.queries.list(f, page);
  }

  postingsOf(collectionIds: bigint[]): Promise<Map<bigint, PostingRow[]>> {
    return this.queries.postingsOf(collectionIds);
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'provider-events', intervalMs: 250, run: () => this.processProviderEvents() },
      { name: 'expiry', intervalMs: 1000, run: () => this.expireDue() },
      { name: 'fold-counts', intervalMs: FOLD_COUNTS_INTERVAL_MS, run: () => foldPastCounts(this.s.db, this.s.now()) },
    ];
  }
}
