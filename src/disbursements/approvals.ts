// Four eyes on money out (docs/contract/disbursements.md, "Four eyes"): when a disbursement must wait for an
// owner's approval and until when, who may approve it (an owner of the business for longer than the
// waiting period, with a current second-factor code, who neither asked for it nor holds the secret of the
// API token that did), who may reject it (any owner: rejecting keeps the money in), the decision, and the
// deadline, checked where the decision is taken and by the timeout that cancels what nobody decided in
// time. Every decision goes through the one state change.
import { sqlFiles } from '../db';
import { WingFlow } from '../base';
import { needsApproval } from '../domain/disbursement';
import type { DisbursementStatus } from '../domain/disbursement';
import { ifRolledBack, inOpenChange } from '../db/change';
import { apiTime } from '../domain/time';
import { AppError } from '../errors';
import type { DisbursementParts } from './parts';
import type { DisbursementRow } from '../api-records/disbursement';
import type { DisbursementStateChanges } from './state-change';
import type { WorkerSpec } from '../workers/loops';

const SQL = sqlFiles(__dirname, ['by-gateway-reference', 'approvals-due', 'waiting-approval']);

/** Disbursements cancelled per run of the timeout worker. */
const BATCH = 20;

/** An owner's decision on a disbursement waiting for approval: who (an owner of `businessId`), and which way. */
export interface ApprovalDecision {
  businessId: number;
  userId: number;
  approve: boolean;
  /** when the person became an owner (null: counts from never, so never past the waiting period) */
  ownerSince: Date | null;
  /**
   * An approval's second factor: checks the person's current code (and is refused, with its own audit
   * entry, when it is wrong or used). Called once everything else allows the approval, so a person who
   * may not approve spends no code.
   */
  confirmCode: () => Promise<void>;
}

/**
 * Whether a new disbursement of `amountMinor` waits for an owner's approval (at or over the wallet's
 * threshold), and until when: the wallet's approval hours from `now`.
 */
export function approvalOf(amountMinor: bigint, w: { disbursement_approval_threshold_minor: bigint | null; disbursement_approval_hours: number }, now: Date): { waits: boolean; expiresAt: Date | null } {
  const waits = needsApproval(amountMinor, w.disbursement_approval_threshold_minor);
  return { waits, expiresAt: waits ? new Date(now.getTime() + w.disbursement_approval_hours * 3_600_000) : null };
}

/** Who might approve: a person of the business, and since when they are an owner (null: not an owner). */
export interface Approver {
  userId: number;
  ownerSince: Date | null;
}

/** How many of a business's disbursements wait for approval, and how many of them this person may approve. */
export interface Waiting {
  waiting: number;
  forYou: number;
}

/**
 * Why `who` may not approve a disbursement asked for by `row`'s asker (null: they may): the four-eyes
 * rule, where a decision is taken and where the dashboard counts what waits for a person.
 */
export function approvalRefusal(row: Pick<DisbursementRow, 'requested_by_user_id' | 'token_holder_user_id'>, who: Approver, now: Date, waitHours: number): string | null {
  if (row.requested_by_user_id === who.userId) return 'Another owner must decide on a disbursement you asked for';
  if (row.token_holder_user_id === who.userId) {
    return 'You hold the secret of the API token that asked for this disbursement (you created or last regenerated it): another owner must approve it';
  }
  const from = who.ownerSince === null ? null : new Date(who.ownerSince.getTime() + waitHours * 3_600_000);
  if (from === null) return 'Only an owner approves disbursements';
  if (from > now) return `A new owner approves disbursements from ${apiTime(from)} on (${waitHours} hours after becoming an owner)`;
  return null;
}

export class DisbursementApprovals extends WingFlow<DisbursementParts, DisbursementStateChanges> {
  /**
   * An owner approves (to PENDING: sent next) or rejects (to CANCELLED: the hold returns) a disbursement
   * waiting for approval; INVALID_STATE once decided. Past its deadline it is cancelled instead, as the
   * timeout would (so nobody approves late), and the decision is INVALID_STATE. Approving needs more than
   * rejecting: see `mayApprove`.
   */
  async decide(gatewayReference: string, d: ApprovalDecision): Promise<DisbursementRow> {
    const row = await this.db.oneOrNone<DisbursementRow>(SQL.byGatewayReference, { businessId: d.businessId, gatewayReference });
    if (!row) throw new AppError('NOT_FOUND', 'No disbursement of your business has this reference');
    if (row.status !== 'PENDING_APPROVAL') throw new AppError('INVALID_STATE', `The disbursement is ${row.status}; only one waiting for approval can be approved or rejected`);
    const now = this.p.now();
    if (row.approval_expires_at !== null && row.approval_expires_at <= now) await this.lateDecision(row);
    if (d.approve) {
      this.mayApprove(row, d, now);
      await d.confirmCode();
    }
    // the move's guard decides between two owners deciding at once (the second finds it decided), and an
    // approval's between it and its deadline
    const from: DisbursementStatus[] = ['PENDING_APPROVAL'];
    const moved = await this.changes.move(
      row.id,
      d.approve ? { to: 'PENDING', decidedBy: d.userId, from, approvedAt: now } : { to: 'CANCELLED', failureReason: 'Rejected by an owner of the business', decidedBy: d.userId, from },
    );
    if (!moved) throw new AppError('INVALID_STATE', 'The disbursement was decided meanwhile, or its approval deadline passed');
    return moved;
  }

  /**
   * Who may approve: an owner who did not ask for it, does not hold the secret of the API token that
   * asked for it (who created or last regenerated it: they could have asked), and has been an owner for
   * OWNER_APPROVAL_WAIT_HOURS (a second owner account made by the first is noticed before it approves).
   */
  private mayApprove(row: DisbursementRow, d: ApprovalDecision, now: Date): void {
    const refusal = approvalRefusal(row, d, now, this.p.config.ownerApprovalWaitHours);
    if (refusal !== null) throw new AppError('FORBIDDEN', refusal);
  }

  /**
   * What waits for approval in `businessId`, and how much of it `who` may approve now (the same rule as
   * `decide`): an owner who joined after a request counts it once past the waiting period.
   */
  async waitingFor(businessId: number, who: Approver): Promise<Waiting> {
    const now = this.p.now();
    const groups = await this.db.any<Pick<DisbursementRow, 'requested_by_user_id' | 'token_holder_user_id'> & { n: number; open: number }>(SQL.waitingApproval, { businessId, now });
    const forYou = groups.filter((g) => approvalRefusal(g, who, now, this.p.config.ownerApprovalWaitHours) === null);
    return { waiting: groups.reduce((a, g) => a + g.n, 0), forYou: forYou.reduce((a, g) => a + g.open, 0) };
  }

  /**
   * A decision after the deadline: the disbursement is cancelled as the timeout would (its hold returns),
   * and the decision refused. The refusal rolls back the change it is part of, so the cancellation is
   * made once it has (at once outside a change).
   */
  private async lateDecision(row: DisbursementRow): Promise<never> {
    const cancel = () => this.cancelUnapproved(row.id);
    if (inOpenChange()) ifRolledBack(cancel);
    else await cancel();
    throw new AppError('INVALID_STATE', `The approval deadline (${apiTime(row.approval_expires_at as Date)}) has passed: the disbursement is cancelled and its money is back in the wallet`);
  }

  /** Cancels the disbursements nobody approved in time (their hold returns). */
  async expireApprovals(): Promise<number> {
    const due = await this.db.any<{ id: bigint }>(SQL.approvalsDue, { now: this.p.now(), limit: BATCH });
    for (const d of due) await this.cancelUnapproved(d.id);
    return due.length;
  }

  /** One waiting past its deadline, cancelled (its hold returns): by the timeout, or by a late decision. */
  private cancelUnapproved(id: bigint): Promise<DisbursementRow | null> {
    return this.changes.move(id, { to: 'CANCELLED', failureReason: 'Not approved in time', from: ['PENDING_APPROVAL'] });
  }

  workers(): WorkerSpec[] {
    return [{ name: 'disbursement-approvals', intervalMs: 60_000, run: () => this.expireApprovals() }];
  }
}
