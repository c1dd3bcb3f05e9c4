// The disbursements' adapter of the processor-request engine (src/processor-requests/engine.ts, whose rules
// hold: docs/contract/processors.md): the disbursement row is its request, written first with the hold;
// what to send (the payout order, our reference never changing), how to ask (the connector's payout query),
// and what the processor's word does: it moves the disbursement through its one state change. A COMPLETED
// payout is watched for a reversal while the check schedule lasts. Callbacks and signed webhooks are
// prompts, but for an asynchronous result naming the id the send was given, which is the answer.
import type { QueryFile } from 'pg-promise';
import { sqlFile } from '../db';
import type { Db } from '../db';
import { DISBURSEMENT_MESSAGES } from '../domain/disbursement';
import type { DisbursementStatus } from '../domain/disbursement';
import { pendingReasonOf, stepAfter } from '../processors/requests';
import type { CallbackHit, CallbackReading, ClaimedRequest, QueueShape, RequestAdapter, RequestRecord, SendAnswer } from '../processors/requests';
import type { CallContext, Observed, PayoutConnector, PayoutObservedStatus, QueryResult } from '../processors/types';
import type { DisbursementParts } from './parts';
import type { DisbursementRow } from './record';
import type { DisbursementStateChanges } from './state-change';

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  requestState: sql('request-state.sql'),
  callbackNote: sql('callback-note.sql'),
  promptByReference: sql('prompt-by-reference.sql'),
};

/** A disbursement claimed for a send or a query, with its MID's sealed credentials. */
export interface Claimed extends DisbursementRow, ClaimedRequest {
  id: bigint;
}

export class PayoutAdapter implements RequestAdapter<Claimed> {
  readonly kind = 'payout' as const;
  readonly queue: QueueShape = {
    table: 'disbursements',
    key: 'id',
    state: 'send_state',
    from: '',
    where: '',
    sendable: "q.status = 'PENDING'",
    // a completed payout may still be reversed (Paystack's transfer.reversed)
    watch: "q.status = 'COMPLETED'",
    ownerStatus: 'q.status',
    returning: 'q.*',
  };

  constructor(
    private readonly p: DisbursementParts ,
    private readonly changes: DisbursementStateChanges,
  ) {}

  private get db(): Db {
    return this.p.db();
  }

  private connectorOf(serviceType: string): PayoutConnector {
    const c = this.p.payoutsOf(serviceType);
    if (!c) throw new Error(`service type ${serviceType} offers no payouts`);
    return c;
  }

  offers(serviceType: string): boolean {
    return this.p.payoutsOf(serviceType) !== null;
  }

  send(ctx: CallContext, d: Claimed, callbackUrl: string): Promise<SendAnswer> {
    return this.connectorOf(d.service_type).initiatePayout(ctx, {
      reference: d.reference, gatewayReference: d.gateway_reference, amountMinor: d.amount_minor, currency: d.currency, paymentMethod: d.payment_method,
      accountNumber: d.account_number, bankCode: d.bank_code, accountName: d.account_name, narration: d.narration ?? d.merchant_reference, callbackUrl,
    });
  }

  query(ctx: CallContext, d: Claimed, callbackUrl: string): Promise<QueryResult<string>> {
    return this.connectorOf(d.service_type).queryPayout(ctx, { reference: d.reference, vendorReference: d.vendor_reference, callbackUrl });
  }

  async accepted(d: Claimed, a: { vendorReference: string | null }): Promise<void> {
    await this.changes.move(d.id, { to: 'PROCESSING', vendorReference: a.vendorReference, nextCheckAt: stepAfter(this.p.now(), this.p.config.processors.checkScheduleMs, 0) });
  }

  async refused(d: Claimed, a: { message: string }): Promise<void> {
    await this.changes.move(d.id, { to: 'FAILED', failureReason: a.message });
  }

  unsent(d: Claimed): Promise<void> {
    return this.record(d, { state: d.state, nextSendAt: null, nextCheckAt: d.next_check_at, lastError: d.last_error });
  }

  async checked(d: Claimed, result: QueryResult<string>): Promise<void> {
    const again = stepAfter(this.p.now(), this.p.config.processors.checkScheduleMs, d.checks);
    if (result.kind === 'observed') {
      const o = result.observed as Observed<PayoutObservedStatus>;
      if (await this.settle(d.id, d.status, o, again)) return;
      // a completed payout's answer that changes nothing: not asked again unless prompted
      if (d.status === 'COMPLETED') return this.record(d, { state: d.state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error });
      return this.record(d, { state: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, vendorReference: o.vendorReference ?? null });
    }
    // asked after a prompt about a completed payout: no answer leaves it as it is
    if (d.status === 'COMPLETED') return this.record(d, { state: d.state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error });
    const note = result.kind === 'not_found' ? 'not found at the processor' : result.detail;
    return this.record(d, { state: d.state, nextSendAt: null, nextCheckAt: again, lastError: note });
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

  async record(d: Claimed, s: RequestRecord): Promise<void> {
    await this.db.none(SQL.requestState, {
      disbursementId: d.id, sendState: s.state, nextSendAt: s.nextSendAt, nextCheckAt: s.nextCheckAt, lastError: s.lastError,
      pendingReason: pendingReasonOf(s.state, d.pending_reason), vendorReference: s.vendorReference ?? null,
    });
  }

  /**
   * A processor's callback about a payout. A vendor whose only account is an asynchronous result (M-Pesa's
   * B2C and Transaction Status results) is taken as the answer only on the payout's own URL and naming the
   * id its send was given, and then it is the answer: whatever it says, no status query follows (a query's
   * result would come back here, and so on). Else it may only fill in that id, and it is a prompt.
   */
  async callback(hit: CallbackHit, serviceType: string, body: unknown): Promise<CallbackReading> {
    const note = this.connectorOf(serviceType).parsePayoutCallback(body);
    if (note.vendorReference !== null) await this.db.none(SQL.callbackNote, { disbursementId: hit.id, vendorReference: note.vendorReference });
    const o = note.observed;
    if (!o || o.unmapped || note.vendorReference === null || note.vendorReference !== hit.vendor_reference) return { answered: false };
    await this.settle(hit.id, hit.status as DisbursementStatus, o, stepAfter(this.p.now(), this.p.config.processors.checkScheduleMs, 0));
    return { answered: true };
  }

  /**
   * A processor's signed webhook (checked by the caller) that may name a payout by our reference: a prompt
   * to ask about it now (a completed one, for a reversal, while the check schedule lasts). Returns how many
   * disbursements it prompted.
   */
  async promptByReference(serviceType: string, body: unknown): Promise<number> {
    const connector = this.p.payoutsOf(serviceType);
    if (!connector) return 0;
    const note = connector.parsePayoutCallback(body);
    if (!note.vendorReference) return 0;
    const hits = await this.db.any(SQL.promptByReference, { now: this.p.now(), serviceType, reference: note.vendorReference, checksBound: this.p.config.processors.checkScheduleMs.length });
    if (hits.length > 0) this.p.kick('processor-checks');
    return hits.length;
  }
}
