// The refunds' adapter of the processor-request engine (src/processor-requests/engine.ts, whose rules hold:
// docs/contract/processors.md): the refund row is its request, written first with the refund; what to send
// (the refund order, our reference never changing), how to ask (the connector's refund query), and what the
// processor's word does: it moves the refund through its one state change. A processor that must confirm
// the refunded payment first (M-Pesa's receipt) is asked before the refund is sent: that ask is this
// adapter's own step, only a read. Callbacks and signed webhooks about refunds are prompts, but for an
// asynchronous result naming the id the send was given, which is the answer.
import { sqlFiles } from '../db';
import { REFUND_MESSAGES } from '../domain/refund';
import { MoneyOutAdapter, moneyOutQueue } from '../processors/money-out-requests';
import { pendingReasonOf } from '../processors/requests';
import type { CallbackHit, CallbackReading, ClaimedRequest, QueueShape, RequestRecord, SendAnswer } from '../processors/requests';
import type { CallbackNote, CallContext, Observed, ObservedStatus, OriginalCheck, QueryResult, RefundConnector, RefundOrder } from '../processors/types';
import type { RefundParts } from './parts';
import type { RefundRow } from '../api-records/refund';
import type { RefundStateChanges } from './state-change';

const SQL = sqlFiles(__dirname, ['request-state', 'prompt-by-payment', 'original-of', 'original-asked', 'original-confirmed', 'hold']);

/** A refund claimed for a send or a query, with what the call needs. */
export interface Claimed extends RefundRow, ClaimedRequest {
  id: bigint;
  vendor_reference: string | null;
  collection_amount_minor: bigint;
  account_number: string | null;
  original_reference: string | null;
  original_vendor_reference: string | null;
  /** the processor's receipt of the payment as its callback gave it (M-Pesa's MpesaReceiptNumber) */
  original_receipt: string | null;
}

export class RefundAdapter extends MoneyOutAdapter<{ claim: Claimed; connector: RefundConnector; status: ObservedStatus; parts: RefundParts; changes: RefundStateChanges }> {
  readonly kind = 'refund' as const;
  readonly queue: QueueShape = moneyOutQueue('refunds', {
    from: ', collections c LEFT JOIN processor_requests p ON p.collection_id = c.id',
    where: ' AND c.id = q.collection_id',
    watch: 'false',
    returning: `q.*, c.gateway_reference AS collection_gateway_reference, c.request_amount_minor AS collection_amount_minor,
  c.account_number, p.reference AS original_reference, p.vendor_reference AS original_vendor_reference, p.receipt AS original_receipt`,
  });

  protected connectorOf(serviceType: string): RefundConnector | null {
    return this.p.refundsOf(serviceType);
  }

  protected readCallback(connector: RefundConnector, body: unknown): CallbackNote {
    return connector.parseRefundCallback(body);
  }

  /** The collection refunded, as it was sent to the processor. */
  private originalOf(r: Claimed): RefundOrder['original'] {
    return {
      reference: r.original_reference ?? r.collection_gateway_reference,
      vendorReference: r.original_vendor_reference,
      receipt: r.original_receipt,
      amountMinor: r.collection_amount_minor,
      accountNumber: r.account_number,
    };
  }

  private orderOf(r: Claimed, callbackUrl: string): RefundOrder {
    return {
      reference: r.reference, gatewayReference: r.gateway_reference, original: this.originalOf(r), amountMinor: r.amount_minor,
      currency: r.currency, reason: r.reason, callbackUrl,
    };
  }

  /** Asking about the refunded payment is only reading: a worker that died asking is simply asked again. */
  onlyReads(r: Claimed): boolean {
    return this.connector(r.service_type).originalCheck !== undefined && r.original_confirmed_at === null;
  }

  /**
   * The refund, or first, for a processor with an original check, the question about the refunded payment
   * (M-Pesa: Transaction Status of the receipt a callback gave); its answer comes to the callback URL
   * (promptOriginal). Asked again on the check schedule while no answer comes.
   */
  async send(ctx: CallContext, r: Claimed, callbackUrl: string): Promise<SendAnswer> {
    const connector = this.connector(r.service_type);
    const order = this.orderOf(r, callbackUrl);
    if (connector.originalCheck && r.original_confirmed_at === null) {
      const sent = await connector.originalCheck.ask(ctx, order);
      return sent.kind === 'asked' ? { kind: 'other', detail: 'asked about the refunded payment', value: sent.queryReference } : sent;
    }
    const result = await connector.initiateRefund(ctx, order);
    return result.kind === 'accepted_with_link' ? { kind: 'accepted', vendorReference: result.vendorReference, claimUrl: result.claimUrl } : result;
  }

  query(ctx: CallContext, r: Claimed, callbackUrl: string): Promise<QueryResult<string>> {
    return this.connector(r.service_type).queryRefund(ctx, { reference: r.reference, vendorReference: r.vendor_reference, callbackUrl, original: this.originalOf(r) });
  }

  async other(r: Claimed, a: { value: unknown }): Promise<void> {
    this.p.log.info('processor asked about the refunded payment', { service_type: r.service_type, gateway_reference: r.gateway_reference });
    await this.db.none(SQL.originalAsked, { refundId: r.id, queryReference: a.value, nextSendAt: this.askedAt(r.send_attempts - 1) });
  }

  protected async observed(r: Claimed, o: Observed, again: Date): Promise<void> {
    if (o.held) return this.holdForOperator(r.id, o);
    // a refund found by our reference keeps what its send's lost answer would have given: the processor's id, the claim link
    const found = { vendorReference: o.vendorReference ?? null, claimUrl: o.claimUrl ?? null };
    if (o.status !== 'PENDING') {
      await this.changes.move(r.id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? REFUND_MESSAGES[o.status]), ...found });
      return;
    }
    // the processor has it: an unknown send was taken after all
    if (r.status === 'PENDING') await this.changes.move(r.id, { to: 'PROCESSING', nextCheckAt: again, ...found });
    else await this.write(r, { state: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, vendorReference: found.vendorReference }, found.claimUrl);
  }

  /**
   * Holds a refund for an operator: the processor's answer (M-Pesa's "already reversed") settles nothing
   * by itself, since the customer may have the money back already. Neither FAILED (returning the hold
   * would credit the merchant twice) nor COMPLETED; not sent or asked about again; an error line tells the
   * operator. A repeated answer changes nothing.
   */
  private async holdForOperator(refundId: bigint, o: Observed): Promise<void> {
    const reason = o.message ?? o.vendorStatus;
    const held = await this.db.oneOrNone<{ gateway_reference: string }>(SQL.hold, { refundId, reason });
    if (held) this.p.log.error('refund held for the operator, its money still held: check with the processor', { gateway_reference: held.gateway_reference, vendor_status: o.vendorStatus, reason });
  }

  record(r: Claimed, s: RequestRecord): Promise<void> {
    return this.write(r, s, null);
  }

  private async write(r: Claimed, s: RequestRecord, claimUrl: string | null): Promise<void> {
    const written = await this.db.result(SQL.requestState, {
      refundId: r.id, sendState: s.state, nextSendAt: s.nextSendAt, nextCheckAt: s.nextCheckAt, lastError: s.lastError,
      pendingReason: pendingReasonOf(s.state, r.pending_reason), vendorReference: s.vendorReference ?? null, claimUrl,
    });
    if (written.rowCount > 0) return;
    // held or settled meanwhile (a send or query under way when the hold or the final answer came): nothing more to ask
    const now = await this.db.one<{ send_state: RefundRow['send_state'] }>('SELECT send_state FROM refunds WHERE id = $1', [r.id]);
    const why = now.send_state === 'held' ? 'held for the operator' : 'already final';
    this.p.log.warn(`late processor answer for a refund ${why}: ignored`, { gateway_reference: r.gateway_reference, send_state: s.state });
  }

  /**
   * A processor's callback about a refund (MoneyOutAdapter's rule: M-Pesa's reversal and status results
   * naming the id the send was given are the answer), or first, for a processor with an original check,
   * its answer about the refunded payment.
   */
  async callback(hit: CallbackHit, serviceType: string, body: unknown): Promise<CallbackReading> {
    const check = this.connector(serviceType).originalCheck;
    if (check && (await this.promptOriginal(check, serviceType, hit, body))) return { answered: true };
    return super.callback(hit, serviceType, body);
  }

  protected async callbackAnswer(hit: CallbackHit, o: Observed): Promise<void> {
    if (o.held) await this.holdForOperator(hit.id, o);
    else if (o.status !== 'PENDING') await this.changes.move(hit.id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? REFUND_MESSAGES[o.status]) });
    else if (hit.status === 'PENDING') await this.changes.move(hit.id, { to: 'PROCESSING', nextCheckAt: this.askedAt(0) });
  }

  /**
   * The processor's answer about a refund's payment (asked before the send), on the refund's own callback
   * URL and naming one of the queries we made (one that came before its query's id was stored is dropped:
   * the payment is asked about again). A match lets the refund be sent now; anything else fails it with
   * the reason and returns its money, and nothing is sent. False when the body answers no such query of a
   * refund still waiting for one (then it is read as any refund callback).
   */
  private async promptOriginal(check: OriginalCheck, serviceType: string, hit: CallbackHit, body: unknown): Promise<boolean> {
    const queryReference = check.answers(body);
    if (queryReference === null) return false;
    const r = await this.db.oneOrNone<Claimed>(SQL.originalOf, { refundId: hit.id });
    if (!r) return false;
    // 'sending': asked again meanwhile (the answer to an earlier query still counts)
    const waiting = r.status === 'PENDING' && (r.send_state === 'queued' || r.send_state === 'sending') && r.original_confirmed_at === null;
    if (!waiting) return false;
    const fields = { service_type: serviceType, gateway_reference: r.gateway_reference };
    if (!r.original_query_references.includes(queryReference)) {
      this.p.log.warn('answer about a refunded payment to another query: dropped', fields);
      return true;
    }
    const v = check.judge(this.p.openCredentials(r.credentials_enc), this.originalOf(r), body);
    if (v.verdict === 'confirmed') {
      const confirmed = await this.db.oneOrNone(SQL.originalConfirmed, { refundId: r.id, now: this.p.now() });
      if (confirmed) {
        this.p.log.info('processor confirmed the refunded payment: sending the refund', fields);
        this.p.kick('refund-sends');
      }
    } else if (v.verdict === 'wait') {
      // still in the processor's queue: noted; the refund is asked about again when next_send_at comes
      await this.db.none('UPDATE refunds SET last_error = $2 WHERE id = $1 AND original_confirmed_at IS NULL', [r.id, v.detail]);
    } else {
      this.p.log.warn('refund failed: the processor does not confirm the refunded payment', { ...fields, reason: v.message });
      await this.changes.move(r.id, { to: 'FAILED', failureReason: v.message });
    }
    return true;
  }

  /**
   * A processor's signed webhook (checked by the caller) that may be about refunds of one payment: a
   * prompt to ask about them now. Returns how many refunds it prompted.
   */
  promptByPayment(serviceType: string, body: unknown): Promise<number> {
    return this.promptNamed(serviceType, body, SQL.promptByPayment, (note) =>
      note.vendorReference || note.originalReference ? { vendorReference: note.vendorReference, originalReference: note.originalReference ?? null } : null,
    );
  }
}
