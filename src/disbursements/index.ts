// The disbursements wing's door (docs/contract/disbursements.md): paying money out of a merchant's wallet
// to a phone or a bank account. It builds the wing's flows from one set of parts and is what the rest of
// the service calls: asking for one (request.ts), four eyes (approvals.ts), the one state change
// (state-change.ts) and the adapter by which the processor-request engine sends and asks about payouts
// (processor-calls.ts).
import type { ListPage, PageRequest } from '../db/keyset';
import type { WorkerSpec } from '../workers/loops';
import { DisbursementApprovals } from './approvals';
import type { ApprovalDecision, Approver, Waiting } from './approvals';
import type { DisbursementFilters } from './filters';
import type { DisbursementParts } from './parts';
import { PayoutAdapter } from './processor-calls';
import type { DisbursementRow } from '../api-records/disbursement';
import { DisbursementRequests } from './request';
import type { DashboardRequester, DisbursementCaller, DisbursementCreateBody } from './request';
import { DisbursementStateChanges } from './state-change';
import type { DisbursementMove } from './state-change';

export type { DisbursementParts } from './parts';
export type { DisbursementCaller, DashboardRequester, DisbursementCreateBody } from './request';
export type { DisbursementFilters } from './filters';

export class DisbursementService {
  private readonly requests: DisbursementRequests;
  private readonly approvals: DisbursementApprovals;
  private readonly changes: DisbursementStateChanges;
  /** the payouts' adapter of the processor-request engine (src/processor-requests/), which sends and asks */
  readonly adapter: PayoutAdapter;

  constructor(p: DisbursementParts) {
    this.changes = new DisbursementStateChanges(p);
    this.requests = new DisbursementRequests(p, this.changes);
    this.approvals = new DisbursementApprovals(p, this.changes);
    this.adapter = new PayoutAdapter(p, this.changes);
  }

  guard(c: DisbursementCaller, operation: string): Promise<void> {
    return this.requests.guard(c, operation);
  }

  create(c: DisbursementCaller, body: DisbursementCreateBody): Promise<{ row: DisbursementRow; replayed: boolean }> {
    return this.requests.create(c, body);
  }

  requestFromDashboard(who: DashboardRequester, body: DisbursementCreateBody): Promise<{ row: DisbursementRow; replayed: boolean }> {
    return this.requests.requestFromDashboard(who, body);
  }

  get(c: DisbursementCaller, gatewayReference: string): Promise<DisbursementRow> {
    return this.requests.get(c, gatewayReference);
  }

  list(c: DisbursementCaller, f: DisbursementFilters, page: PageRequest): Promise<ListPage<DisbursementRow>> {
    return this.requests.list(c, f, page);
  }

  move(disbursementId: bigint, m: DisbursementMove): Promise<DisbursementRow | null> {
    return this.changes.move(disbursementId, m);
  }

  decide(gatewayReference: string, d: ApprovalDecision): Promise<DisbursementRow> {
    return this.approvals.decide(gatewayReference, d);
  }

  /** What waits for an owner's approval in a business, and how much of it for `who` (four eyes). */
  waitingFor(businessId: number, who: Approver): Promise<Waiting> {
    return this.approvals.waitingFor(businessId, who);
  }

  expireApprovals(): Promise<number> {
    return this.approvals.expireApprovals();
  }

  promptByReference(serviceType: string, body: unknown): Promise<number> {
    return this.adapter.promptByReference(serviceType, body);
  }

  workers(): WorkerSpec[] {
    return this.approvals.workers();
  }
}
