// The disbursements' adapter of the processor-request engine (src/processor-requests/engine.ts, whose rules
// hold: docs/contract/processors.md): the disbursement row is its request, written first with the hold;
// what to send (the payout order, our reference never changing), how to ask (the connector's payout query),
// and what the processor's word does: it moves the disbursement through its one state change. A COMPLETED
// payout is watched for a reversal while the check schedule lasts. Callbacks and signed webhooks are
// prompts, but for an asynchronous result naming the id the send was given, which is the answer.
import { sqlFiles } from '../db';
import { DISBURSEMENT_MESSAGES } from '../domain/disbursement';
import type { DisbursementStatus } from '../domain/disbursement';
import { MoneyOutAdapter, moneyOutQueue } from '../processors/money-out-requests';
import type { Unanswered } from '../processors/money-out-requests';
import { pendingReasonOf } from '../processors/requests';
import type { CallbackHit, ClaimedRequest, QueueShape, RequestRecord, SendAnswer } from '../processors/requests';
import type { CallbackNote, CallContext, Observed, PayoutConnector, PayoutObservedStatus, QueryResult } from '../processors/types';
import type { DisbursementParts } from './parts';
import type { DisbursementRow } from '../api-records/disbursement';
import type { DisbursementStateChanges } from './state-change';

const SQL = sqlFiles(__dirname, ['request-state', 'prompt-by-reference']);

/** A disbursement claimed for a send or a query, with its MID's sealed credentials. */
export interface Claimed extends DisbursementRow, ClaimedRequest {
  id: bigint;
}

type PayoutTypes = { claim: Claimed; connector: PayoutConnector; status: PayoutObservedStatus; parts: DisbursementParts; changes: DisbursementStateChanges };

export class PayoutAdapter extends MoneyOutAdapter<PayoutTypes> {
  readonly kind = 'payout' as const;
  // a completed payout may still be reversed (Paystack's transfer.reversed)
  readonly queue: QueueShape = moneyOutQueue('disbursements', { from: '', where: '', watch: "q.status = 'COMPLETED'", returning: 'q.*' });

  protected connectorOf(serviceType: string): PayoutConnector | null {
    return this.p.payoutsOf(serviceType);
  }

  protected readCallback(connector: PayoutConnector, body: unknown): CallbackNote<PayoutObservedStatus> {
    return connector.parsePayoutCallback(body);
  }

  send(ctx: CallContext, d: Claimed, callbackUrl: string): Promise<SendAnswer> {
    return this.connector(d.service_type).initiatePayout(ctx, {
      reference: d.reference, gatewayReference: d.gateway_reference, amountMinor: d.amount_minor, currency: d.currency, paymentMethod: d.payment_method,
      accountNumber: d.account_number, bankCode: d.bank_code, accountName: d.account_name, narration: d.narration ?? d.merchant_reference, callbackUrl,
    });
  }

  query(ctx: CallContext, d: Claimed, callbackUrl: string): Promise<QueryResult<string>> {
    return this.connector(d.service_type).queryPayout(ctx, { reference: d.reference, vendorReference: d.vendor_reference, callbackUrl });
  }

  protected async observed(d: Claimed, o: Observed<PayoutObservedStatus>, again: Date): Promise<void> {
    if (await this.settle(d.id, d.status, o, again)) return;
    // a completed payout's answer that changes nothing: not asked again unless prompted
    if (d.status === 'COMPLETED') return this.record(d, { state: d.state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error });
    return this.record(d, { state: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, vendorReference: o.vendorReference ?? null });
  }

  protected unanswered(d: Claimed, result: Unanswered): Promise<void> {
    // asked after a prompt about a completed payout: no answer leaves it as it is
    if (d.status === 'COMPLETED') return this.record(d, { state: d.state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error });
    return super.unanswered(d, result);
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

  /** M-Pesa's B2C and Transaction Status results on the payout's own URL, naming the id its send was given (MoneyOutAdapter's rule): whatever they say, no status query follows. */
  protected async callbackAnswer(hit: CallbackHit, o: Observed<PayoutObservedStatus>): Promise<void> {
    await this.settle(hit.id, hit.status as DisbursementStatus, o, this.askedAt(0));
  }

  /**
   * A processor's signed webhook (checked by the caller) that may name a payout by our reference: a prompt
   * to ask about it now (a completed one, for a reversal, while the check schedule lasts). Returns how many
   * disbursements it prompted.
   */
  promptByReference(serviceType: string, body: unknown): Promise<number> {
    return this.promptNamed(serviceType, body, SQL.promptByReference, (note) =>
      note.vendorReference ? { reference: note.vendorReference, checksBound: this.p.config.processors.checkScheduleMs.length } : null,
    );
  }
}
