// A refund at its processor (docs/contract/refunds.md, docs/contract/processors.md): the refund row is its
// request, written first; a worker sends it with our reference, which never changes; an unknown outcome is
// settled by a status query (a send whose worker died mid-call is never sent again blind: after its lease
// it is an unknown outcome); a callback is a prompt. A processor that must confirm the refunded payment
// first (M-Pesa's receipt) is asked before the refund is sent. What the processor's word does goes through
// the one state change.
import type { QueryFile } from 'pg-promise';
import { sqlFile } from '../db';
import type { Db } from '../db';
import { isRefundFinal, REFUND_MESSAGES } from '../domain/refund';
import type { RefundStatus } from '../domain/refund';
import type { CallContext, ConfirmationSent, Observed, OriginalCheck, QueryResult, RefundConnector, RefundOrder, RefundSendResult } from '../processors/types';
import type { WorkerSpec } from '../workers/loops';
import type { RefundParts } from './parts';
import type { RefundRow } from './record';
import type { RefundStateChanges } from './state-change';

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  claim: sql('claim.sql'),
  requestState: sql('request-state.sql'),
  prompt: sql('prompt.sql'),
  promptByPayment: sql('prompt-by-payment.sql'),
  originalByToken: sql('original-by-token.sql'),
  originalAsked: sql('original-asked.sql'),
  originalConfirmed: sql('original-confirmed.sql'),
  originalWaiting: sql('original-waiting.sql'),
  hold: sql('hold.sql'),
};

/** Refunds sent or checked per worker run. */
const BATCH = 20;
/** a send or query: a token, the call, and both again after a refused token */
const CALLS_PER_ITEM = 4;
const LEASE_MARGIN_MS = 10_000;

/** A refund claimed for a send or a query, with what the call needs. */
export interface Claimed extends RefundRow {
  collection_amount_minor: bigint;
  account_number: string | null;
  original_reference: string | null;
  original_vendor_reference: string | null;
  /** the processor's receipt of the payment as its callback gave it (M-Pesa's MpesaReceiptNumber) */
  original_receipt: string | null;
  credentials_enc: string | null;
  /** a send's claim found it 'sending': its last worker died mid-call, with no outcome written */
  was_sending: boolean;
}

export class RefundProcessorCalls {
  constructor(
    private readonly p: RefundParts,
    private readonly changes: RefundStateChanges,
  ) {}

  private get db(): Db {
    return this.p.db();
  }

  private leaseEnd(): Date {
    return new Date(this.p.now().getTime() + CALLS_PER_ITEM * this.p.config.processors.timeoutMs + LEASE_MARGIN_MS);
  }

  private after(schedule: number[], n: number): Date {
    return new Date(this.p.now().getTime() + schedule[Math.min(Math.max(n, 0), schedule.length - 1)]);
  }

  private connectorOf(r: Claimed): RefundConnector {
    const c = this.p.refundsOf(r.service_type);
    if (!c) throw new Error(`service type ${r.service_type} offers no refunds`);
    return c;
  }

  private context(r: Claimed): CallContext {
    return { midId: r.mid_id ?? 0, credentials: this.p.openCredentials(r.credentials_enc) };
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

  /** Where the processor may call back about this refund: its own unguessable token. */
  private callbackUrl(r: Claimed): string {
    return `${this.p.config.publicBaseUrl}/callbacks/${r.service_type}/${r.callback_token}`;
  }

  /** Sends the refunds that are due (new ones, retries), and asks about those whose worker died mid-send. */
  async sendDue(): Promise<number> {
    const claimed = await this.claimSends();
    await Promise.all(claimed.map((r) => this.sendOne(r)));
    return claimed.length;
  }

  /** The refunds due a send, claimed for a lease and marked 'sending': a worker that dies now leaves them to the next after it. */
  claimSends(): Promise<Claimed[]> {
    return this.db.any<Claimed>(SQL.claim, { clock: 'next_send_at', counter: 'send_attempts', send: true, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
  }

  private async sendOne(r: Claimed): Promise<void> {
    const check = this.p.refundsOf(r.service_type)?.originalCheck;
    const asking = check !== undefined && r.original_confirmed_at === null;
    if (r.was_sending && !asking) {
      // its last worker died after the call may have reached the processor: an unknown outcome, settled by
      // a status query (and sent again, same reference, only when the processor never received it). A
      // worker that died asking about the refunded payment only read: that is asked again below.
      await this.afterSend(r, { kind: 'unknown', detail: 'the worker sending it stopped before writing the outcome' });
      return;
    }
    if (r.status !== 'PENDING' || r.send_state !== 'sending') {
      await this.record(r, { sendState: r.send_state, nextSendAt: null, nextCheckAt: r.next_check_at, lastError: r.last_error, pendingReason: r.pending_reason });
      return;
    }
    const order: RefundOrder = {
      reference: r.reference,
      gatewayReference: r.gateway_reference,
      original: this.originalOf(r),
      amountMinor: r.amount_minor,
      currency: r.currency,
      reason: r.reason,
      callbackUrl: this.callbackUrl(r),
    };
    if (check && asking) {
      await this.askOriginal(r, check, order);
      return;
    }
    let result: RefundSendResult;
    try {
      result = await this.connectorOf(r).initiateRefund(this.context(r), order);
    } catch (err) {
      this.p.log.error('refund send failed', { service_type: r.service_type, gateway_reference: r.gateway_reference, err });
      result = { kind: 'unknown', detail: 'connector failed' };
    }
    await this.afterSend(r, result);
  }

  /**
   * Before a processor with an original check is sent the refund, it is asked about the refunded payment
   * (M-Pesa: Transaction Status of the receipt a callback gave); its answer comes to the callback URL
   * (promptOriginal). Asked again on the check schedule while no answer comes: asking is only reading.
   */
  private async askOriginal(r: Claimed, check: OriginalCheck, order: RefundOrder): Promise<void> {
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference, attempt: r.send_attempts };
    let sent: ConfirmationSent;
    try {
      sent = await check.ask(this.context(r), order);
    } catch (err) {
      this.p.log.error('refund original check failed', { ...fields, err });
      sent = { kind: 'retry', detail: 'connector failed' };
    }
    switch (sent.kind) {
      case 'asked':
        this.p.log.info('processor asked about the refunded payment', fields);
        await this.db.none(SQL.originalAsked, { refundId: r.id, queryReference: sent.queryReference, nextSendAt: this.after(this.p.config.processors.checkScheduleMs, r.send_attempts - 1) });
        return;
      case 'refused':
        this.p.log.warn('refund refused before sending: the refunded payment is not confirmed', { ...fields, detail: sent.detail });
        await this.changes.move(r.id, { to: 'FAILED', failureReason: sent.message });
        return;
      case 'retry':
        this.p.log.warn('refund original check to be retried', { ...fields, detail: sent.detail });
        await this.record(r, { sendState: 'queued', nextSendAt: this.after(this.p.config.processors.sendScheduleMs, r.send_attempts), nextCheckAt: null, lastError: sent.detail, pendingReason: 'awaiting_processor' });
        return;
    }
  }

  private async afterSend(r: Claimed, result: RefundSendResult): Promise<void> {
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference, attempt: r.send_attempts };
    const checks = this.p.config.processors.checkScheduleMs;
    switch (result.kind) {
      case 'accepted':
      case 'accepted_with_link':
        this.p.log.info('refund accepted by the processor', fields);
        await this.changes.move(r.id, {
          to: 'PROCESSING', vendorReference: result.vendorReference, claimUrl: result.kind === 'accepted_with_link' ? result.claimUrl : null,
          nextCheckAt: this.after(checks, 0),
        });
        return;
      case 'refused':
        this.p.log.warn('processor refused the refund', { ...fields, detail: result.detail });
        await this.changes.move(r.id, { to: 'FAILED', failureReason: result.message });
        return;
      case 'retry':
        this.p.log.warn('refund send to be retried', { ...fields, detail: result.detail });
        await this.record(r, { sendState: 'queued', nextSendAt: this.after(this.p.config.processors.sendScheduleMs, r.send_attempts), nextCheckAt: null, lastError: result.detail, pendingReason: 'awaiting_processor' });
        return;
      case 'unknown':
        this.p.log.warn('refund send outcome unknown', { ...fields, detail: result.detail });
        await this.record(r, { sendState: 'unknown', nextSendAt: null, nextCheckAt: this.after(this.p.config.processors.sendScheduleMs, r.send_attempts), lastError: result.detail, pendingReason: 'outcome_unknown' });
        return;
    }
  }

  /** Asks the processor about the refunds due a status query. */
  async checkDue(): Promise<number> {
    const claimed = await this.db.any<Claimed>(SQL.claim, { clock: 'next_check_at', counter: 'checks', send: false, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
    await Promise.all(claimed.map((r) => this.checkOne(r)));
    return claimed.length;
  }

  private async checkOne(r: Claimed): Promise<void> {
    if (isRefundFinal(r.status) || r.send_state === 'queued' || r.send_state === 'sending' || r.send_state === 'held') {
      await this.record(r, { sendState: r.send_state, nextSendAt: r.next_send_at, nextCheckAt: null, lastError: r.last_error, pendingReason: r.pending_reason });
      return;
    }
    let result: QueryResult;
    try {
      result = await this.connectorOf(r).queryRefund(this.context(r), {
        reference: r.reference, vendorReference: r.vendor_reference, callbackUrl: this.callbackUrl(r), original: this.originalOf(r),
      });
    } catch (err) {
      this.p.log.error('refund status query failed', { service_type: r.service_type, gateway_reference: r.gateway_reference, err });
      result = { kind: 'unavailable', detail: 'connector failed' };
    }
    await this.afterCheck(r, result);
  }

  private async afterCheck(r: Claimed, result: QueryResult): Promise<void> {
    const again = this.after(this.p.config.processors.checkScheduleMs, r.checks);
    if (result.kind === 'observed') {
      const o = result.observed;
      if (o.unmapped) this.p.log.error('unknown refund status read as PENDING', { service_type: r.service_type, gateway_reference: r.gateway_reference, vendor_status: o.vendorStatus });
      if (o.held) {
        await this.holdForOperator(r.id, o);
        return;
      }
      // a refund found by our reference keeps what its send's lost answer would have given: the processor's id, the claim link
      const found = { vendorReference: o.vendorReference ?? null, claimUrl: o.claimUrl ?? null };
      if (o.status !== 'PENDING') {
        await this.changes.move(r.id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? REFUND_MESSAGES[o.status]), ...found });
        return;
      }
      // the processor has it: an unknown send was taken after all
      if (r.status === 'PENDING') await this.changes.move(r.id, { to: 'PROCESSING', nextCheckAt: again, ...found });
      else await this.record(r, { sendState: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, pendingReason: null, ...found });
      return;
    }
    if (result.kind === 'not_found' && r.send_state === 'unknown') {
      // it never reached the processor: sent again, under the same reference
      this.p.log.warn('refund unknown to the processor: sent again under the same reference', { gateway_reference: r.gateway_reference });
      await this.record(r, { sendState: 'queued', nextSendAt: this.p.now(), nextCheckAt: null, lastError: 'not found at the processor', pendingReason: 'awaiting_processor' });
      this.p.kick('refund-sends');
      return;
    }
    const note = result.kind === 'not_found' ? 'not found at the processor' : result.detail;
    await this.record(r, { sendState: r.send_state, nextSendAt: null, nextCheckAt: again, lastError: note, pendingReason: r.pending_reason });
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

  private async record(
    r: Claimed,
    s: {
      sendState: RefundRow['send_state']; nextSendAt: Date | null; nextCheckAt: Date | null; lastError: string | null; pendingReason: RefundRow['pending_reason'];
      vendorReference?: string | null; claimUrl?: string | null;
    },
  ): Promise<void> {
    const written = await this.db.result(SQL.requestState, { refundId: r.id, vendorReference: null, claimUrl: null, ...s });
    // held meanwhile (a send or query under way when the hold came): it waits for the operator
    if (written.rowCount === 0) this.p.log.warn('late processor answer for a refund held for the operator: ignored', { gateway_reference: r.gateway_reference, send_state: s.sendState });
  }

  /**
   * A processor's callback about a refund, found by the unguessable token of its URL: a prompt to ask
   * the processor now. What it says is taken as the answer only from a vendor whose results come this way
   * (M-Pesa's reversal and status results, `observed`) and only when it names the processor's id the send
   * was given. False when no refund of this service type has the token.
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<boolean> {
    const connector = this.p.refundsOf(serviceType);
    if (!connector) return false;
    if (connector.originalCheck) {
      const answered = await this.promptOriginal(connector.originalCheck, serviceType, callbackToken, body);
      if (answered !== null) return answered;
    }
    const note = connector.parseRefundCallback(body);
    const hit = await this.db.oneOrNone<{ id: bigint; status: RefundStatus; known_vendor_reference: string | null }>(SQL.prompt, {
      now: this.p.now(), vendorReference: note.vendorReference, callbackToken, serviceType,
    });
    if (!hit) return false;
    const o = note.observed;
    if (o && !o.unmapped && note.vendorReference !== null && note.vendorReference === hit.known_vendor_reference) {
      if (o.held) await this.holdForOperator(hit.id, o);
      else if (o.status !== 'PENDING') await this.changes.move(hit.id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? REFUND_MESSAGES[o.status]) });
      else if (hit.status === 'PENDING') await this.changes.move(hit.id, { to: 'PROCESSING', nextCheckAt: this.after(this.p.config.processors.checkScheduleMs, 0) });
      return true;
    }
    this.p.kick('refund-checks');
    return true;
  }

  /**
   * The processor's answer about a refund's payment (askOriginal), on the refund's own callback URL and
   * naming one of the queries we made (one that came before its query's id was stored is dropped: the
   * payment is asked about again). A match lets the refund be sent now; anything else
   * fails it with the reason and returns its money, and nothing is sent. Null when the body answers no
   * such query of a refund still waiting for one (the caller reads it as any refund callback).
   */
  private async promptOriginal(check: OriginalCheck, serviceType: string, callbackToken: string, body: unknown): Promise<boolean | null> {
    const queryReference = check.answers(body);
    if (queryReference === null) return null;
    const r = await this.db.oneOrNone<Claimed>(SQL.originalByToken, { callbackToken, serviceType });
    if (!r) return false;
    // 'sending': asked again meanwhile (the answer to an earlier query still counts)
    const waiting = r.status === 'PENDING' && (r.send_state === 'queued' || r.send_state === 'sending') && r.original_confirmed_at === null;
    if (!waiting) return null;
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference };
    if (!r.original_query_references.includes(queryReference)) {
      this.p.log.warn('answer about a refunded payment to another query: dropped', fields);
      return true;
    }
    const v = check.judge(this.context(r).credentials, this.originalOf(r), body);
    if (v.verdict === 'confirmed') {
      const confirmed = await this.db.oneOrNone(SQL.originalConfirmed, { refundId: r.id, now: this.p.now() });
      if (confirmed) {
        this.p.log.info('processor confirmed the refunded payment: sending the refund', fields);
        this.p.kick('refund-sends');
      }
    } else if (v.verdict === 'wait') {
      await this.db.none(SQL.originalWaiting, { refundId: r.id, lastError: v.detail });
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
  async promptByPayment(serviceType: string, body: unknown): Promise<number> {
    const connector = this.p.refundsOf(serviceType);
    if (!connector) return 0;
    const note = connector.parseRefundCallback(body);
    if (!note.vendorReference && !note.originalReference) return 0;
    const hits = await this.db.any(SQL.promptByPayment, { now: this.p.now(), serviceType, vendorReference: note.vendorReference, originalReference: note.originalReference ?? null });
    if (hits.length > 0) this.p.kick('refund-checks');
    return hits.length;
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'refund-sends', intervalMs: 500, run: () => this.sendDue() },
      { name: 'refund-checks', intervalMs: 500, run: () => this.checkDue() },
    ];
  }
}
