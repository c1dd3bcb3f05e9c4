// The one path by which a disbursement changes state (docs/contract/disbursements.md): the move, guarded
// on the states it may come from and kept for the timeline in the same statement, the journal the move
// calls for, the webhook notification and the owners' emails, in one transaction.
import { randomBytes } from 'node:crypto';
import type { QueryFile } from 'pg-promise';
import { sqlFile } from '../db';
import type { Db, Tx } from '../db';
import { DISBURSEMENT_MESSAGES, disbursementMovesFrom, disbursementOutcomePlan, isDisbursementSettled } from '../domain/disbursement';
import type { DisbursementJournal, DisbursementStatus } from '../domain/disbursement';
import { accountName, assertBalanced } from '../domain/ledger';
import type { AccountKey } from '../domain/ledger';
import { currentTraceParent } from '../telemetry';
import { disbursementEmails } from './emails';
import type { DisbursementParts } from './parts';
import { toDisbursementRecord } from './record';
import type { DisbursementRow } from './record';

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  ledgerAccounts: sql('ledger-accounts.sql'),
  postJournal: sql('post-journal.sql'),
  move: sql('move.sql'),
  notification: sql('notification.sql'),
  businessName: sql('business-name.sql'),
  ownersEmail: sql('owners-email.sql'),
};

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
      if (moved.status === 'PENDING') this.p.kick('disbursement-sends');
    }
    return moved;
  }

  /** A disbursement journal, checked to balance first; the hold of a new one or the outcome of a move; a second one of a kind is a bug. */
  async post(t: Tx, row: DisbursementRow, journal: DisbursementJournal, now: Date): Promise<void> {
    assertBalanced(journal.postings);
    const ids = await this.accountIds(t, row.business_id, journal.postings.map((p) => p.account));
    const written = await t.any(SQL.postJournal, {
      disbursementId: row.id, kind: journal.kind, now,
      accountIds: journal.postings.map((p) => ids.get(accountName(p.account))),
      amounts: journal.postings.map((p) => p.amountMinor),
      currencies: journal.postings.map((p) => p.account.currency),
    });
    if (written.length !== 1) throw new Error(`disbursement ${row.id} already has its ${journal.kind} journal`);
  }

  private async accountIds(t: Tx, businessId: number, keys: AccountKey[]): Promise<Map<string, number>> {
    const unique = [...new Map(keys.map((k) => [accountName(k), k])).values()].sort((a, b) => (accountName(a) < accountName(b) ? -1 : 1));
    const params = { businessId, walletIds: unique.map((k) => k.walletId), currencies: unique.map((k) => k.currency), kinds: unique.map((k) => k.kind) };
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows = await t.any<{ id: number; wallet_id: number | null; currency: string; kind: AccountKey['kind'] }>(SQL.ledgerAccounts, params);
      const ids = new Map(rows.map((r) => [accountName({ kind: r.kind, walletId: r.wallet_id, currency: r.currency }), r.id]));
      if (ids.size === unique.length) return ids;
    }
    throw new Error('ledger accounts could not be created');
  }

  /** The webhook notification of a move, when an API token asked for the disbursement. */
  private async outbox(t: Tx, row: DisbursementRow, now: Date): Promise<void> {
    if (row.api_token_id === null) return;
    await t.none(SQL.notification, {
      disbursementId: row.id, apiTokenId: row.api_token_id, eventId: 'evt_' + randomBytes(16).toString('hex'), sequence: row.notification_seq,
      status: row.status, body: JSON.stringify({ ...toDisbursementRecord(row), sequence: row.notification_seq }), now, traceParent: currentTraceParent(),
      firstAttemptAt: new Date(now.getTime() + this.p.config.webhookRetryScheduleMs[0]),
    });
  }

  /** The owners' emails of the state the disbursement is now in (waiting for approval, or its money returned), with a move or with a new disbursement. */
  async emailOwners(t: Tx, row: DisbursementRow, now: Date): Promise<void> {
    if (row.status !== 'PENDING_APPROVAL' && row.status !== 'FAILED' && row.status !== 'REVERSED') return;
    const page = `${this.p.config.publicBaseUrl}/dashboard/disbursements/${row.gateway_reference}`;
    const business = await t.one<{ name: string }>(SQL.businessName, { businessId: row.business_id });
    for (const e of disbursementEmails(row, business.name, page)) {
      await t.any(SQL.ownersEmail, { kind: e.kind, subject: e.subject, text: e.text, now, businessId: row.business_id, exceptUserId: e.exceptUserId });
    }
  }
}
