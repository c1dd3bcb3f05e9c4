// The one path by which a refund changes state (docs/contract/refunds.md), in one transaction: the move
// (guarded on where it may come from), the collection's refunded amount given back on FAILED or
// CANCELLED, the outcome journal of a final state, the notification and the emails; and an operator's
// decision on a refund held for them, through that same path.
import { sqlFiles } from '../db';
import { inOneChange } from '../db/change';
import type { Db, Tx } from '../db';
import { isRefundFinal, REFUND_MESSAGES, refundMovesFrom, refundOutcomePlan } from '../domain/refund';
import type { RefundFinal, RefundJournal, RefundStatus } from '../domain/refund';
import { AppError } from '../errors';
import { refundEmails } from './emails';
import type { RefundRecipients } from './emails';
import type { RefundParts } from './parts';
import { toRefundRecord } from '../api-records/refund';
import type { RefundRow } from '../api-records/refund';

const SQL = sqlFiles(__dirname, ['collection-refunded', 'move']);

/** What the merchant reads on a held refund an operator failed: its money is back in the wallet. */
export const RESOLVED_FAILED_REASON = 'Not refunded: the processor could not settle this refund, and an operator returned its money to your wallet';

interface Moved extends RefundRow {
  account_email: string | null;
  recipients: RefundRecipients | null;
}

/** A move of a refund: to which state, from which, and what its request to the processor becomes. */
export interface RefundMove {
  to: Exclude<RefundStatus, 'PENDING'>;
  failureReason?: string | null;
  vendorReference?: string | null;
  claimUrl?: string | null;
  /** when PROCESSING: the first status query */
  nextCheckAt?: Date | null;
  /** an operator's decision on a held refund: why, and who */
  resolution?: { note: string; by: string };
}

export class RefundStateChanges {
  constructor(private readonly p: RefundParts) {}

  private get db(): Db {
    return this.p.db();
  }

  /**
   * The one path by which a refund changes state, in one transaction: the move (guarded on where it may
   * come from), the collection's refunded amount given back on FAILED or CANCELLED, the outcome journal
   * of a final state, the notification and the emails. Null when the refund was not in a state it may
   * move from (a repeat or a late report changes nothing).
   */
  async move(refundId: bigint, m: RefundMove): Promise<RefundRow | null> {
    // the state machine's own answer: PROCESSING only from PENDING (never PROCESSING again), a final state from either
    const from: RefundStatus[] = refundMovesFrom(m.to);
    const moved = await this.db.tx('refund-move', async (t) => {
      const now = this.p.now();
      const final = isRefundFinal(m.to);
      const row = await t.oneOrNone<Moved>(SQL.move, {
        refundId, to: m.to, from, failureReason: m.failureReason ?? null, message: REFUND_MESSAGES[m.to], now,
        vendorReference: m.vendorReference ?? null, claimUrl: m.claimUrl ?? null, sendState: final ? 'settled' : 'sent', nextCheckAt: final ? null : (m.nextCheckAt ?? null),
        resolutionNote: m.resolution?.note ?? null, resolvedBy: m.resolution?.by ?? null,
      });
      if (!row) return null;
      if (final) {
        // the collection before the ledger, in the order a new refund takes them (no deadlock)
        if (m.to !== 'COMPLETED') await t.none(SQL.collectionRefunded, { collectionId: row.collection_id, deltaMinor: -row.amount_minor });
        const plan = refundOutcomePlan(m.to as RefundFinal, { walletId: row.wallet_id, currency: row.account_currency, accountAmountMinor: row.account_amount_minor });
        await this.post(t, row, plan, now);
      }
      await this.outbox(t, row, now);
      return row;
    });
    if (moved) {
      this.p.log.info('refund moved', { gateway_reference: moved.gateway_reference, status: moved.status });
      this.p.kick('webhooks');
      this.p.kick('emails');
    }
    return moved;
  }

  /**
   * An operator's decision on a refund held for them, once, through the one state change: COMPLETED posts
   * its hold out as any completed refund (the customer has the money back), FAILED returns the hold to the
   * wallet as any failed refund; the merchant is notified as for any such change. NOT_FOUND for no such
   * refund; INVALID_STATE, changing nothing, for one that is not held (never held, or settled already).
   */
  async resolveHeld(gatewayReference: string, outcome: 'COMPLETED' | 'FAILED', note: string, by: string): Promise<RefundRow> {
    // the lock, the move and (in the operator API) its audit entry in one transaction
    return inOneChange(this.db, async () => {
      // locked for the decision: a second decision or a processor's late answer waits, then finds it no longer held
      const held = await this.db.oneOrNone<{ id: bigint; send_state: RefundRow['send_state'] }>('SELECT id, send_state FROM refunds WHERE gateway_reference = $1 FOR UPDATE', [gatewayReference]);
      if (!held) throw new AppError('NOT_FOUND', 'No refund has this gateway_reference');
      if (held.send_state !== 'held') throw new AppError('INVALID_STATE', 'This refund is not held for an operator: only a held refund can be resolved, once');
      const failureReason = outcome === 'FAILED' ? RESOLVED_FAILED_REASON : null;
      const moved = await this.move(held.id, { to: outcome, failureReason, resolution: { note, by } });
      if (!moved) throw new Error(`held refund ${gatewayReference} did not move`);
      return moved;
    });
  }

  /** A refund journal (the hold of a new refund, the outcome of a move), posted by the ledger; a second hold or outcome of one refund is a bug. */
  async post(t: Tx, row: RefundRow, journal: RefundJournal, now: Date): Promise<void> {
    const owner = { collectionId: row.collection_id, refundId: row.id };
    if (!(await this.p.ledger.postJournal(t, { businessId: row.business_id, owner, kind: journal.kind, postings: journal.postings, now }))) {
      throw new Error(`refund ${row.id} already has its ${journal.kind} journal`);
    }
  }

  /** The webhook notification (when an API token asked) and the emails of a move, written to the outbox by the notifications wing. */
  private async outbox(t: Tx, row: Moved, now: Date): Promise<void> {
    const { account_email: customerEmail, recipients, ...refund } = row;
    if (refund.api_token_id !== null) {
      await this.p.notifications.enqueueWebhook(t, {
        owner: { collectionId: refund.collection_id, refundId: refund.id }, apiTokenId: refund.api_token_id, sequence: refund.notification_seq,
        status: refund.status, body: JSON.stringify({ ...toRefundRecord(refund), sequence: refund.notification_seq }), now,
      });
    }
    await this.p.notifications.enqueueEmails(t, refund.collection_id, refundEmails(refund, recipients, customerEmail));
  }

}
