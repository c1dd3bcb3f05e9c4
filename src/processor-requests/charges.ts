// The collections' adapter of the processor-request engine (engine.ts): a collection's charge at a real
// processor. What to send (the payment order), how to ask (the connector's status query), and what an
// answer does: `decide` (reconcile.ts) reads it against the collection's state and deadline, and the
// collection moves through its one state change (collections/state-change.ts). Callbacks may only fill in
// what a status query cannot tell: the processor's id of the request, the amount it says was paid, the
// receipt of the payment.
import type { Base } from '../base';
import { sqlFile } from '../db';
import type { CollectionService, MoveFrom } from '../collections';
import type { Status } from '../domain/collection';
import type { Processors } from '../processors';
import { hasOwnCheckout } from '../processors/checkout';
import type { CallbackHit, ClaimedRequest, QueueShape, RequestAdapter, RequestRecord } from '../processors/requests';
import type { CallContext, Connector, ObservedStatus, QueryResult } from '../processors/types';
import { decide, lateSuccessReason } from './reconcile';
import type { CheckAction } from './reconcile';

const SQL = {
  callbackNotes: sqlFile(__dirname, 'callback-notes.sql'),
  record: sqlFile(__dirname, 'record.sql'),
  confirmed: sqlFile(__dirname, 'confirmed.sql'),
};

/** A collection's charge as its claim reads it: the request with what the call needs of the collection. */
export interface ClaimedCharge extends ClaimedRequest {
  amount_minor: bigint;
  currency: string;
  reported_amount_minor: bigint | null;
  reported_currency: string | null;
  collection_status: Status;
  account_number: string | null;
  narration: string;
  expires_at: Date;
  card_masked: string | null;
}

export class ChargeAdapter implements RequestAdapter<ClaimedCharge> {
  readonly kind = 'collection' as const;
  readonly queue: QueueShape = {
    table: 'processor_requests',
    key: 'collection_id',
    state: 'state',
    from: ', collections c',
    where: ' AND c.id = q.collection_id',
    // a request is sent only while its collection waits for the payment
    sendable: "c.status = 'PENDING'",
    // settled for a collection that did not complete: a processor's later success must still reach it
    // (EXPIRED completes late; FAILED and CANCELLED are held for the operator)
    watch: "q.state = 'settled' AND c.status IN ('EXPIRED', 'FAILED', 'CANCELLED')",
    ownerStatus: 'c.status',
    returning: `q.amount_minor, q.currency, q.reported_amount_minor, q.reported_currency, c.status AS collection_status,
  c.gateway_reference, c.account_number, c.narration, c.expires_at, c.card_masked`,
  };

  constructor(private readonly s: Base & { collections: CollectionService; processors: Processors }) {}

  private connector(serviceType: string): Connector {
    const c = this.s.processors.get(serviceType).connector;
    if (!c) throw new Error(`service type ${serviceType} has no connector`);
    return c;
  }

  offers(serviceType: string): boolean {
    return this.s.processors.has(serviceType) && this.s.processors.get(serviceType).connector !== null;
  }

  send(ctx: CallContext, c: ClaimedCharge, callbackUrl: string) {
    return this.connector(c.service_type).initiate(ctx, {
      reference: c.reference, gatewayReference: c.gateway_reference, amountMinor: c.amount_minor, currency: c.currency,
      accountNumber: c.account_number ?? '', narration: c.narration, callbackUrl,
    });
  }

  query(ctx: CallContext, c: ClaimedCharge): Promise<QueryResult<string>> {
    return this.connector(c.service_type).queryStatus(ctx, { reference: c.reference, vendorReference: c.vendor_reference });
  }

  async accepted(c: ClaimedCharge, r: { vendorReference: string | null }): Promise<void> {
    // the first status query comes on the schedule, never past the collection's deadline
    const first = new Date(Math.min(this.s.now().getTime() + this.s.config.processors.checkScheduleMs[0], c.expires_at.getTime()));
    await this.write(c, { state: 'sent', nextSendAt: null, nextCheckAt: first, lastError: null, vendorReference: r.vendorReference }, { resetChecks: true });
  }

  async refused(c: ClaimedCharge, r: { message: string; detail: string }): Promise<void> {
    await this.s.collections.applyOutcome(c.id, 'FAILED', r.message);
    await this.record(c, { state: 'settled', nextSendAt: null, nextCheckAt: c.next_check_at, lastError: r.detail });
  }

  async unsent(c: ClaimedCharge): Promise<void> {
    // the claim marks only a PENDING collection's queued request: this one expired (or was decided) before
    // the processor took it, nothing to send any more
    await this.record(c, { state: 'settled', nextSendAt: null, nextCheckAt: c.next_check_at, lastError: c.last_error });
  }

  record(c: ClaimedCharge, r: RequestRecord): Promise<void> {
    return this.write(c, r, {});
  }

  private async write(c: ClaimedCharge, r: RequestRecord, o: { resetChecks?: boolean; heldReason?: string }): Promise<void> {
    await this.s.db.none(SQL.record, {
      id: c.id, now: this.s.now(), state: r.state, nextSendAt: r.nextSendAt, nextCheckAt: r.nextCheckAt, lastError: r.lastError,
      vendorReference: r.vendorReference ?? null, resetChecks: o.resetChecks ?? false, heldReason: o.heldReason ?? null,
    });
  }

  /**
   * The collection's processor's answer: its own final word kept apart (the settlement report compares),
   * then `decide` reads it against the collection's state and deadline and the collection moves.
   */
  async checked(c: ClaimedCharge, result: QueryResult<string>): Promise<void> {
    const r = result as QueryResult<ObservedStatus>;
    if (r.kind === 'observed' && r.observed.status !== 'PENDING') {
      await this.s.db.none(SQL.confirmed, { id: c.id, outcome: r.observed.status, now: this.s.now() });
    }
    const processor = this.s.processors.get(c.service_type);
    const action = decide({
      state: c.state as 'sent' | 'unknown' | 'settled',
      collectionStatus: c.collection_status,
      expiresAt: c.expires_at,
      checks: c.checks,
      now: this.s.now(),
      result: r,
      amountMinor: c.amount_minor,
      currency: c.currency,
      reported: { amountMinor: c.reported_amount_minor, currency: c.reported_currency },
      checkScheduleMs: this.s.config.processors.checkScheduleMs,
      lateCheckMs: this.s.config.processors.lateCheckSeconds * 1000,
      // a decline the customer can try again after: a hosted checkout that offers it, not a direct card
      retryableDecline: hasOwnCheckout(processor) && processor.checkout.retryAfterDecline && c.card_masked === null,
    });
    await this.carryOut(c, action);
  }

  private async carryOut(c: ClaimedCharge, a: CheckAction): Promise<void> {
    const fields = { service_type: c.service_type, gateway_reference: c.gateway_reference };
    const settled = { state: 'settled' as const, nextSendAt: null, nextCheckAt: null, lastError: null };
    switch (a.do) {
      case 'complete': {
        const moved = await this.s.collections.applyOutcome(c.id, 'COMPLETED', undefined, a.from);
        if (!moved) return this.completedElsewhere(c, a.from);
        if (a.from === 'EXPIRED') this.s.log.warn('late completion: the processor confirmed payment after expiry', fields);
        return this.record(c, settled);
      }
      case 'fail':
        await this.s.collections.applyOutcome(c.id, a.status, a.message);
        return this.record(c, settled);
      case 'hold':
        this.s.log.error('payment held for the operator, not credited: resolve it with resolve-held', { ...fields, collection_status: c.collection_status, reason: a.reason });
        return this.write(c, { state: 'held', nextSendAt: null, nextCheckAt: null, lastError: c.last_error }, { heldReason: a.reason });
      case 'expire':
        await this.s.collections.applyOutcome(c.id, 'EXPIRED', a.message);
        return this.record(c, { state: c.state, nextSendAt: c.next_send_at, nextCheckAt: a.nextCheckAt, lastError: a.note });
      case 'wait':
        return this.record(c, { state: c.state, nextSendAt: c.next_send_at, nextCheckAt: a.nextCheckAt, lastError: a.note });
      case 'settle':
        return this.record(c, { ...settled, lastError: c.last_error });
    }
  }

  /**
   * A confirmed success that found the collection no longer `from` (another path moved it between our
   * read and our write): decided again on what it is now, so the success is credited once or held,
   * never dropped.
   */
  private async completedElsewhere(c: ClaimedCharge, from: MoveFrom): Promise<void> {
    const { status } = await this.s.collections.get(c.gateway_reference, null);
    if (status === 'COMPLETED') return this.carryOut(c, { do: 'settle' });
    if (status === 'EXPIRED' && from !== 'EXPIRED') return this.carryOut({ ...c, collection_status: status }, { do: 'complete', from: 'EXPIRED' });
    return this.carryOut({ ...c, collection_status: status }, { do: 'hold', reason: lateSuccessReason(status) });
  }

  /**
   * A callback about a collection's charge: what it may fill in (the processor's id of the request, the
   * amount it says was paid, the receipt of the payment: the last one said before the completion is
   * confirmed, afterwards only when none is known; a refund confirms the receipt with the processor before
   * naming it). Never the answer: a prompt to ask.
   */
  async callback(hit: CallbackHit, serviceType: string, body: unknown): Promise<{ answered: false }> {
    const note = this.connector(serviceType).parseCallback(body);
    await this.s.db.none(SQL.callbackNotes, {
      id: hit.id, now: this.s.now(), vendorReference: note.vendorReference, reportedAmountMinor: note.reported?.amountMinor ?? null,
      reportedCurrency: note.reported?.currency ?? null, receipt: note.receipt ?? null,
    });
    return { answered: false };
  }
}
