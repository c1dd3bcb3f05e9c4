// The refunds wing's door (docs/contract/refunds.md): refunds of completed collections. It builds the
// wing's flows from one set of parts and is what the rest of the service calls: asking for one
// (request.ts), the one state change and an operator's resolution (state-change.ts), and the adapter by which
// the processor-request engine sends and asks about refunds (processor-calls.ts).
import type { ListPage, PageRequest } from '../db/keyset';
import type { RefundFilters } from './filters';
import type { RefundParts } from './parts';
import { RefundAdapter } from './processor-calls';
import type { RefundRow } from '../api-records/refund';
import { RefundRequests } from './request';
import type { RefundCreateBody, RefundRequester } from './request';
import { RefundStateChanges } from './state-change';
import type { RefundMove } from './state-change';

export type { RefundParts } from './parts';
export type { RefundCreateBody, RefundRequester } from './request';
export { RESOLVED_FAILED_REASON } from './state-change';

export class RefundService {
  private readonly requests: RefundRequests;
  private readonly changes: RefundStateChanges;
  /** the refunds' adapter of the processor-request engine (src/processor-requests/), which sends and asks */
  readonly adapter: RefundAdapter;

  constructor(p: RefundParts) {
    this.changes = new RefundStateChanges(p);
    this.requests = new RefundRequests(p, this.changes);
    this.adapter = new RefundAdapter(p, this.changes);
  }

  create(who: RefundRequester, collectionReference: string, body: RefundCreateBody, requestId: string | null): Promise<{ row: RefundRow; replayed: boolean }> {
    return this.requests.create(who, collectionReference, body, requestId);
  }

  get(businessId: number, gatewayReference: string): Promise<RefundRow> {
    return this.requests.get(businessId, gatewayReference);
  }

  byMerchantReference(businessId: number, merchantReference: string): Promise<RefundRow | null> {
    return this.requests.byMerchantReference(businessId, merchantReference);
  }

  ofCollection(collectionId: bigint): Promise<RefundRow[]> {
    return this.requests.ofCollection(collectionId);
  }

  list(f: RefundFilters, page: PageRequest): Promise<ListPage<RefundRow>> {
    return this.requests.list(f, page);
  }

  move(refundId: bigint, m: RefundMove): Promise<RefundRow | null> {
    return this.changes.move(refundId, m);
  }

  resolveHeld(gatewayReference: string, outcome: 'COMPLETED' | 'FAILED', note: string, by: string): Promise<RefundRow> {
    return this.changes.resolveHeld(gatewayReference, outcome, note, by);
  }

  promptByPayment(serviceType: string, body: unknown): Promise<number> {
    return this.adapter.promptByPayment(serviceType, body);
  }

}
