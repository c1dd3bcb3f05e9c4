// The one path by which a disbursement changes state (docs/contract/disbursements.md): the move, guarded
// on the states it may come from and kept for the timeline in the same statement, the journal the move
// calls for, the webhook notification and the owners' emails, in one transaction.
import { sqlFiles } from '../db';
import type { Db, Tx } from '../db';
import { DISBURSEMENT_MESSAGES, disbursementMovesFrom, disbursementOutcomePlan, isDisbursementSettled } from '../domain/disbursement';
import type { DisbursementJournal, DisbursementStatus } from '../domain/disbursement';
import { disbursementEmails } from './emails';
import type { DisbursementParts } from './parts';
import { toDisbursementRecord } from '../api-records/disbursement';
import type { DisbursementRow } from '../api-records/disbursement';

const SQL = sqlFiles(__dirname, ['move']);

/** A move of a disbursement: to which state, and what its request to the processor becomes. */
export interface DisbursementMove {
  to: Exclude<DisbursementStatus, 'PENDING_APPROVAL'>;
  failureReason?: string | null;
  vendorReference?: string | null;
  /** when PROCESSING: the first status query */
  nextCheckAt?: Date | null;
  /** leaving PENDING_APPROVAL: the owner who decided (none for the timeout) */
  decidedBy?: number | null;
  /** only from these states (a decision or the timeout: PENDING_APPROVAL); else every state `to` may come from */
  from?: DisbursementStatus[];
  /** an approval: only while its deadline (approval_expires_at) is after this time, checked in the move's own statement */
  approvedAt?: Date;
}

export function moneyOf(row: DisbursementRow) {
  return { walletId: row.wallet_id, currency: row.currency, amountMinor: row.amount_minor, feeMinor: row.fee_minor };
}

export class DisbursementStateChanges {
  constructor(private readonly p: DisbursementParts) {}

  private get db(): Db {
    return this.p.db();
  }

  /**
   * The one path by which a disbursement changes state, in one transaction: the move (guarded on the
   * states it may come from, and kept for the timeline in the same statement), the journal the move calls
   * for, and the notification. Null when the
   * disbursement was not in a state it may move from (a repeat or a late report changes nothing).
   */
  async move(disbursementId: bigint, m: DisbursementMove): Promise<DisbursementRow | null> {
    const moved = await this.db.tx('disbursement-move', async (t) => {
      const now = this.p.now();
      const settled = isDisbursementSettled(m.to);
      const queued = m.to === 'PENDING';
      const row = await t.oneOrNone<DisbursementRow>(SQL.move, {
        disbursementId, to: m.to, from: m.from ?? disbursementMovesFrom(m.to), pendingReason: queued ? 'awaiting_processor' : null,
        failureReason: m.failureReason ?? null, message: DISBURSEMENT_MESSAGES[m.to], now, vendorReference: m.vendorReference ?? null,
        sendState: settled ? 'settled' : queued ? 'queued' : 'sent', nextSendAt: queued ? now : null,
        nextCheckAt: settled || queued ? null : (m.nextCheckAt ?? null), decidedBy: m.decidedBy ?? null, approvedAt: m.approvedAt ?? null,
      });
      if (!row) return null;
      const plan = disbursementOutcomePlan(m.to, moneyOf(row));
      if (plan) await this.post(t, row, plan, now);
      await this.outbox(t, row, now);
      await this.emailOwners(t, row, now);
      return row;
    });
    if (moved) {
      this.p.log.info('disbursement moved', { gateway_reference: moved.gateway_reference, status: moved.status });
      this.p.kick('webhooks');
      if (moved.status === 'FAILED' || moved.status === 'REVERSED') this.p.kick('emails');
      if (moved.status === 'PENDING') this.p.kick('payout-sends');
    }
    return moved;
  }

  /** A disbursement journal (the hold of a new one, the outcome of a move), posted by the ledger; a second one of a kind is a bug. */
  async post(t: Tx, row: DisbursementRow, journal: DisbursementJournal, now: Date): Promise<void> {
    if (!(await this.p.ledger.postJournal(t, { businessId: row.business_id, owner: { disbursementId: row.id }, kind: journal.kind, postings: journal.postings, now }))) {
      throw new Error(`disbursement ${row.id} already has its ${journal.kind} journal`);
    }
  }

  /** The webhook notification of a move, when an API token asked for the disbursement. */
  private async outbox(t: Tx, row: DisbursementRow, now: Date): Promise<void> {
    if (row.api_token_id === null) return;
    await this.p.notifications.enqueueWebhook(t, {
      owner: { disbursementId: row.id }, apiTokenId: row.api_token_id, sequence: row.notification_seq, status: row.status,
      body: JSON.stringify({ ...toDisbursementRecord(row), sequence: row.notification_seq }), now,
    });
  }

  /** The owners' emails of the state the disbursement is now in (waiting for approval, or its money returned), with a move or with a new disbursement. */
  async emailOwners(t: Tx, row: DisbursementRow, now: Date): Promise<void> {
    if (row.status !== 'PENDING_APPROVAL' && row.status !== 'FAILED' && row.status !== 'REVERSED') return;
    const page = `${this.p.config.publicBaseUrl}/dashboard/disbursements/${row.gateway_reference}`;
    // the business's name, as its owners' emails show it
    const business = await t.one<{ name: string }>('SELECT name FROM businesses WHERE id = $1', [row.business_id]);
    for (const e of disbursementEmails(row, business.name, page)) {
      await this.p.notifications.emailOwners(t, { kind: e.kind, subject: e.subject, text: e.text, now, businessId: row.business_id, exceptUserId: e.exceptUserId });
    }
  }
}
