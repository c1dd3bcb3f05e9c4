// A disbursement at its processor (docs/contract/disbursements.md): a worker sends it to the MID's
// processor with our reference, which never changes; an unknown outcome (a send whose worker died mid-call
// included: never sent again blind) is settled by a status query; a callback is only a prompt. What the
// processor's word does goes through the one state change.
import type { QueryFile } from 'pg-promise';
import { sqlFile } from '../db';
import type { Db } from '../db';
import { DISBURSEMENT_MESSAGES, isDisbursementSettled } from '../domain/disbursement';
import type { DisbursementPendingReason, DisbursementStatus } from '../domain/disbursement';
import type { CallContext, Observed, PayoutConnector, PayoutObservedStatus, PayoutOrder, QueryResult, SendResult } from '../processors/types';
import type { WorkerSpec } from '../workers/loops';
import type { DisbursementParts } from './parts';
import type { DisbursementRow } from './record';
import type { DisbursementStateChanges } from './state-change';

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  claim: sql('claim.sql'),
  requestState: sql('request-state.sql'),
  prompt: sql('prompt.sql'),
  promptByReference: sql('prompt-by-reference.sql'),
};

/** Disbursements sent or checked per worker run. */
const BATCH = 20;
/** a send or query: a token, the call, and both again after a refused token */
const CALLS_PER_ITEM = 4;
const LEASE_MARGIN_MS = 10_000;

/** A disbursement claimed for a send or a query, with its MID's sealed credentials. */
export interface Claimed extends DisbursementRow {
  credentials_enc: string | null;
  /** a send's claim found it 'sending': its last worker died mid-call, with no outcome written */
  was_sending: boolean;
}

export class DisbursementProcessorCalls {
  constructor(
    private readonly p: DisbursementParts,
    private readonly changes: DisbursementStateChanges,
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

  private connectorOf(d: Claimed): PayoutConnector {
    const c = this.p.payoutsOf(d.service_type);
    if (!c) throw new Error(`service type ${d.service_type} offers no payouts`);
    return c;
  }

  private context(d: Claimed): CallContext {
    return { midId: d.mid_id ?? 0, credentials: this.p.openCredentials(d.credentials_enc) };
  }

  /** Where the processor may call back about this payout: its own unguessable token. */
  private callbackUrl(d: DisbursementRow): string {
    return `${this.p.config.publicBaseUrl}/callbacks/${d.service_type}/${d.callback_token}`;
  }

  /** Sends the disbursements that are due (new ones, retries), and asks about those whose worker died mid-send. */
  async sendDue(): Promise<number> {
    const claimed = await this.claimSends();
    await Promise.all(claimed.map((d) => this.sendOne(d)));
    return claimed.length;
  }

  /** The disbursements due a send, claimed for a lease and marked 'sending': a worker that dies now leaves them to the next after it. */
  claimSends(): Promise<Claimed[]> {
    return this.db.any<Claimed>(SQL.claim, { clock: 'next_send_at', counter: 'send_attempts', send: true, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
  }

  private async sendOne(d: Claimed): Promise<void> {
    if (d.was_sending) {
      // its last worker died after the call may have reached the processor: an unknown outcome, settled by
      // a status query (and sent again, same reference, only when the processor never received it)
      await this.afterSend(d, { kind: 'unknown', detail: 'the worker sending it stopped before writing the outcome' });
      return;
    }
    if (d.status !== 'PENDING' || d.send_state !== 'sending') {
      await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: d.next_check_at, lastError: d.last_error, pendingReason: d.pending_reason });
      return;
    }
    const order: PayoutOrder = {
      reference: d.reference, gatewayReference: d.gateway_reference, amountMinor: d.amount_minor, currency: d.currency, paymentMethod: d.payment_method,
      accountNumber: d.account_number, bankCode: d.bank_code, accountName: d.account_name, narration: d.narration ?? d.merchant_reference, callbackUrl: this.callbackUrl(d),
    };
    let result: SendResult;
    try {
      result = await this.connectorOf(d).initiatePayout(this.context(d), order);
    } catch (err) {
      this.p.log.error('disbursement send failed', { service_type: d.service_type, gateway_reference: d.gateway_reference, err });
      result = { kind: 'unknown', detail: 'connector failed' };
    }
    await this.afterSend(d, result);
  }

  private async afterSend(d: Claimed, result: SendResult): Promise<void> {
    const fields = { service_type: d.service_type, gateway_reference: d.gateway_reference, attempt: d.send_attempts };
    const sends = this.p.config.processors.sendScheduleMs;
    switch (result.kind) {
      case 'accepted':
        this.p.log.info('disbursement accepted by the processor', fields);
        await this.changes.move(d.id, { to: 'PROCESSING', vendorReference: result.vendorReference, nextCheckAt: this.after(this.p.config.processors.checkScheduleMs, 0) });
        return;
      case 'refused':
        this.p.log.warn('processor refused the disbursement', { ...fields, detail: result.detail });
        await this.changes.move(d.id, { to: 'FAILED', failureReason: result.message });
        return;
      case 'retry':
        this.p.log.warn('disbursement send to be retried', { ...fields, detail: result.detail });
        await this.record(d, { sendState: 'queued', nextSendAt: this.after(sends, d.send_attempts), nextCheckAt: null, lastError: result.detail, pendingReason: 'awaiting_processor' });
        return;
      case 'unknown':
        this.p.log.warn('disbursement send outcome unknown', { ...fields, detail: result.detail });
        await this.record(d, { sendState: 'unknown', nextSendAt: null, nextCheckAt: this.after(sends, d.send_attempts), lastError: result.detail, pendingReason: 'outcome_unknown' });
        return;
    }
  }

  /** Asks the processor about the disbursements due a status query. */
  async checkDue(): Promise<number> {
    const claimed = await this.db.any<Claimed>(SQL.claim, { clock: 'next_check_at', counter: 'checks', send: false, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
    await Promise.all(claimed.map((d) => this.checkOne(d)));
    return claimed.length;
  }

  private async checkOne(d: Claimed): Promise<void> {
    const reversible = d.status === 'COMPLETED';
    if ((isDisbursementSettled(d.status) && !reversible) || d.send_state === 'queued' || d.send_state === 'sending' || d.send_state === 'held') {
      await this.record(d, { sendState: d.send_state, nextSendAt: d.next_send_at, nextCheckAt: null, lastError: d.last_error, pendingReason: d.pending_reason });
      return;
    }
    let result: QueryResult<PayoutObservedStatus>;
    try {
      result = await this.connectorOf(d).queryPayout(this.context(d), { reference: d.reference, vendorReference: d.vendor_reference, callbackUrl: this.callbackUrl(d) });
    } catch (err) {
      this.p.log.error('disbursement status query failed', { service_type: d.service_type, gateway_reference: d.gateway_reference, err });
      result = { kind: 'unavailable', detail: 'connector failed' };
    }
    await this.afterCheck(d, result);
  }

  private async afterCheck(d: Claimed, result: QueryResult<PayoutObservedStatus>): Promise<void> {
    const again = this.after(this.p.config.processors.checkScheduleMs, d.checks);
    if (result.kind === 'observed') {
      const o = result.observed;
      if (o.unmapped) this.p.log.error('unknown payout status read as PENDING', { service_type: d.service_type, gateway_reference: d.gateway_reference, vendor_status: o.vendorStatus });
      if (await this.settle(d.id, d.status, o, again)) return;
      if (d.status === 'COMPLETED') await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error, pendingReason: null });
      else await this.record(d, { sendState: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, pendingReason: null, vendorReference: o.vendorReference ?? null });
      return;
    }
    if (d.status === 'COMPLETED') {
      // asked after a callback about a completed payout: no answer leaves it as it is
      await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error, pendingReason: null });
      return;
    }
    if (result.kind === 'not_found' && d.send_state === 'unknown') {
      // it never reached the processor: sent again, under the same reference
      this.p.log.warn('disbursement unknown to the processor: sent again under the same reference', { gateway_reference: d.gateway_reference });
      await this.record(d, { sendState: 'queued', nextSendAt: this.p.now(), nextCheckAt: null, lastError: 'not found at the processor', pendingReason: 'awaiting_processor' });
      this.p.kick('disbursement-sends');
      return;
    }
    const note = result.kind === 'not_found' ? 'not found at the processor' : result.detail;
    await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: again, lastError: note, pendingReason: d.pending_reason });
  }

  /**
   * What the processor's word (a status query's answer, or a result on the payout's own callback URL)
   * does to a disbursement in `status`: true when it moved it (or the move found it moved already), false
   * when the word changes nothing (PENDING at the processor for one already PROCESSING; anything but a
   * reversal for a COMPLETED one).
   */
  private async settle(id: bigint, status: DisbursementStatus, o: Observed<PayoutObservedStatus>, again: Date): Promise<boolean> {
    const found = o.vendorReference ?? null;
    if (status === 'COMPLETED') {
      if (o.status !== 'REVERSED') return false;
      await this.changes.move(id, { to: 'REVERSED', failureReason: o.message ?? 'The processor reversed the payment' });
      return true;
    }
    switch (o.status) {
      case 'COMPLETED':
      case 'FAILED':
      case 'CANCELLED':
        await this.changes.move(id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? DISBURSEMENT_MESSAGES[o.status]), vendorReference: found });
        return true;
      case 'REVERSED':
        // paid and taken back before we saw it paid: the money never left for good; settled as FAILED
        await this.changes.move(id, { to: 'FAILED', failureReason: o.message ?? 'The processor reversed the payment', vendorReference: found });
        return true;
      case 'PENDING':
        // the processor has it: an unknown send was taken after all
        if (status !== 'PENDING') return false;
        await this.changes.move(id, { to: 'PROCESSING', nextCheckAt: again, vendorReference: found });
        return true;
    }
  }

  private async record(
    d: Claimed,
    s: { sendState: DisbursementRow['send_state']; nextSendAt: Date | null; nextCheckAt: Date | null; lastError: string | null; pendingReason: DisbursementPendingReason | null; vendorReference?: string | null },
  ): Promise<void> {
    await this.db.none(SQL.requestState, { disbursementId: d.id, vendorReference: null, ...s });
  }

  /**
   * A processor's callback about a payout, found by the unguessable token of its URL: a prompt to ask the
   * processor now, never proof by itself (but see `observed` below). False when no disbursement of this
   * service type has the token.
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<boolean> {
    const connector = this.p.payoutsOf(serviceType);
    if (!connector) return false;
    const note = connector.parsePayoutCallback(body);
    const hit = await this.db.oneOrNone<{ id: bigint; status: DisbursementStatus; known_vendor_reference: string | null }>(SQL.prompt, {
      now: this.p.now(), vendorReference: note.vendorReference, callbackToken, serviceType,
    });
    if (!hit) return false;
    // a vendor whose only account is an asynchronous result (M-Pesa's B2C and Transaction Status results):
    // taken as the answer only on the payout's own URL and naming the id its send was given
    const o = note.observed;
    if (o && !o.unmapped && note.vendorReference !== null && note.vendorReference === hit.known_vendor_reference) {
      if (await this.settle(hit.id, hit.status, o, this.after(this.p.config.processors.checkScheduleMs, 0))) return true;
    }
    this.p.kick('disbursement-checks');
    return true;
  }

  /**
   * A processor's signed webhook (checked by the caller) that may name a payout by our reference: a prompt
   * to ask about it now. Returns how many disbursements it prompted.
   */
  async promptByReference(serviceType: string, body: unknown): Promise<number> {
    const connector = this.p.payoutsOf(serviceType);
    if (!connector) return 0;
    const note = connector.parsePayoutCallback(body);
    if (!note.vendorReference) return 0;
    const hits = await this.db.any(SQL.promptByReference, { now: this.p.now(), serviceType, reference: note.vendorReference });
    if (hits.length > 0) this.p.kick('disbursement-checks');
    return hits.length;
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'disbursement-sends', intervalMs: 500, run: () => this.sendDue() },
      { name: 'disbursement-checks', intervalMs: 500, run: () => this.checkDue() },
    ];
  }
}
