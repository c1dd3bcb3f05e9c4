// Four eyes on money out (docs/contract/disbursements.md): when a disbursement must wait for an owner's
// approval and until when, who may approve or reject it (never the person who asked), the decision, and
// the timeout that cancels what nobody decided in time. Every decision goes through the one state change.
import type { QueryFile } from 'pg-promise';
import { sqlFile } from '../db';
import type { Db } from '../db';
import { needsApproval } from '../domain/disbursement';
import type { DisbursementStatus } from '../domain/disbursement';
import { AppError } from '../errors';
import type { DisbursementParts } from './parts';
import type { DisbursementRow } from './record';
import type { DisbursementStateChanges } from './state-change';
import type { WorkerSpec } from '../workers/loops';

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  byGatewayReference: sql('by-gateway-reference.sql'),
  approvalsDue: sql('approvals-due.sql'),
};

/** Disbursements cancelled per run of the timeout worker. */
const BATCH = 20;

/** An owner's decision on a disbursement waiting for approval: who (a person of `businessId`), and which way. */
export interface ApprovalDecision {
  businessId: number;
  userId: number;
  approve: boolean;
}

/**
 * Whether a new disbursement of `amountMinor` waits for an owner's approval (at or over the wallet's
 * threshold), and until when: the wallet's approval hours from `now`.
 */
export function approvalOf(amountMinor: bigint, w: { disbursement_approval_threshold_minor: bigint | null; disbursement_approval_hours: number }, now: Date): { waits: boolean; expiresAt: Date | null } {
  const waits = needsApproval(amountMinor, w.disbursement_approval_threshold_minor);
  return { waits, expiresAt: waits ? new Date(now.getTime() + w.disbursement_approval_hours * 3_600_000) : null };
}

export class DisbursementApprovals {
  constructor(
    private readonly p: DisbursementParts,
    private readonly changes: DisbursementStateChanges,
  ) {}

  private get db(): Db {
    return this.p.db();
  }

  /**
   * An owner approves (to PENDING: sent next) or rejects (to CANCELLED: the hold returns) a disbursement
   * waiting for approval. Never the person who asked for it; INVALID_STATE once decided.
   */
  async decide(gatewayReference: string, d: ApprovalDecision): Promise<DisbursementRow> {
    const row = await this.db.oneOrNone<DisbursementRow>(SQL.byGatewayReference, { businessId: d.businessId, gatewayReference });
    if (!row) throw new AppError('NOT_FOUND', 'No disbursement of your business has this reference');
    if (row.requested_by_user_id === d.userId) throw new AppError('FORBIDDEN', 'Another owner must decide on a disbursement you asked for');
    const undecided = () => new AppError('INVALID_STATE', `The disbursement is ${row.status}; only one waiting for approval can be approved or rejected`);
    if (row.status !== 'PENDING_APPROVAL') throw undecided();
    // the move's guard decides between two owners deciding at once: the second finds it decided
    const from: DisbursementStatus[] = ['PENDING_APPROVAL'];
    const moved = await this.changes.move(row.id, d.approve ? { to: 'PENDING', decidedBy: d.userId, from } : { to: 'CANCELLED', failureReason: 'Rejected by an owner of the business', decidedBy: d.userId, from });
    if (!moved) throw new AppError('INVALID_STATE', 'The disbursement was decided meanwhile');
    return moved;
  }

  /** Cancels the disbursements nobody approved in time (their hold returns). */
  async expireApprovals(): Promise<number> {
    const due = await this.db.any<{ id: bigint }>(SQL.approvalsDue, { now: this.p.now(), limit: BATCH });
    for (const d of due) await this.changes.move(d.id, { to: 'CANCELLED', failureReason: 'Not approved in time', from: ['PENDING_APPROVAL'] });
    return due.length;
  }

  workers(): WorkerSpec[] {
    return [{ name: 'disbursement-approvals', intervalMs: 60_000, run: () => this.expireApprovals() }];
  }
}
