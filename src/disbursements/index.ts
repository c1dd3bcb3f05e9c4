// The disbursements wing's door (docs/contract/disbursements.md): paying money out of a merchant's wallet
// to a phone or a bank account. It builds the wing's flows from one set of parts and is what the rest of
// the service calls: asking for one (request.ts), four eyes (approvals.ts), the one state change
// (state-change.ts) and the calls to the processor (processor-calls.ts).
import type { ListPage, PageRequest } from '../db/keyset';
import type { WorkerSpec } from '../workers/loops';
import { DisbursementApprovals } from './approvals';
import type { ApprovalDecision } from './approvals';
import type { DisbursementFilters } from './filters';
import type { DisbursementParts } from './parts';
import { DisbursementProcessorCalls } from './processor-calls';
import type { Claimed } from './processor-calls';
import type { DisbursementRow } from './record';
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
  private readonly calls: DisbursementProcessorCalls;

  constructor(p: DisbursementParts) {
    this.changes = new DisbursementStateChanges(p);
    this.requests = new DisbursementRequests(p, this.changes);
    this.approvals = new DisbursementApprovals(p, this.changes);
    this.calls = new DisbursementProcessorCalls(p, this.changes);
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

  expireApprovals(): Promise<number> {
    return this.approvals.expireApprovals();
  }

  sendDue(): Promise<number> {
    return this.calls.sendDue();
  }

  claimSends(): Promise<Claimed[]> {
    return this.calls.claimSends();
  }

  checkDue(): Promise<number> {
    return this.calls.checkDue();
  }

  prompt(serviceType: string, callbackToken: string, body: unknown): Promise<boolean> {
    return this.calls.prompt(serviceType, callbackToken, body);
  }

  promptByReference(serviceType: string, body: unknown): Promise<number> {
    return this.calls.promptByReference(serviceType, body);
  }

  workers(): WorkerSpec[] {
    return [...this.calls.workers(), ...this.approvals.workers()];
  }
}
