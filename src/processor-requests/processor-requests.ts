// Requests to real processors (docs/contract/processors.md). request-to-pay writes a processor_requests row with the
// collection; two workers do the talking, each claiming rows with FOR UPDATE SKIP LOCKED and a lease
// (the claim pushes the due time past the calls' deadlines) in one short statement, calling the vendor
// outside any transaction, then recording the result. So several processes share the work and all state
// lives in the database.
// - sends: queued -> sending (the claim's mark) -> sent (or unknown, settled by a status query); retried on
//   PROCESSOR_SEND_SCHEDULE. A crash mid-call is never sent again blind: the next claim after the lease finds
//   'sending' and reads it as an unknown outcome (a status query; a resend under the same reference only when
//   the processor never received it), since M-Pesa's STK push does not promise to refuse a repeated request.
// - checks (reconciliation): status queries on PROCESSOR_CHECK_SCHEDULE; the processor is asked once
//   more at the deadline before a collection expires, and a success it confirms later completes it.
// Callbacks only bring a check forward: they are prompts, never proof. A callback about a collection that
// is already FAILED, CANCELLED or EXPIRED is asked about too, so a success confirmed after our final word
// never vanishes: EXPIRED completes late, FAILED and CANCELLED are held for the operator.
import type { Status } from '../domain/collection';
import { AppError } from '../errors';
import { hasOwnCheckout } from '../processors/checkout';
import { decide, lateSuccessReason } from './reconcile';
import type { CheckAction } from './reconcile';
import type { CallContext, CredentialCheck, Processor, QueryResult, SendResult } from '../processors/types';
import { afterCommit } from '../db/change';
import { sqlFile } from '../db';
import { inSpan } from '../telemetry';
import type { ProcessorOperation } from '../telemetry/figures';
import type { WorkerSpec } from '../workers/loops';
import { toProcessorRequestView } from '../api-records/collection';
import type { ProcessorRequestRow, ProcessorRequestView } from '../api-records/collection';
import type { MoveFrom } from '../collections';
import type { Base } from '../base';
import type { DisbursementService } from '../disbursements';
import type { RefundService } from '../refunds';
import type { CollectionService } from '../collections';
import type { Processors } from '../processors';
import { masterKeys } from '../crypto/secretbox';
import { openCredentials } from '../processors/credentials';

const VIEWS_OF_SQL = sqlFile(__dirname, 'views-of.sql');
const CLAIM_SENDS_SQL = sqlFile(__dirname, 'claim-sends.sql');
const CLAIM_CHECKS_SQL = sqlFile(__dirname, 'claim-checks.sql');
const CLAIM_ONE_SQL = sqlFile(__dirname, 'claim-one.sql');

const BATCH = 20;
/** a call's outcomes that are not a usable answer: counted as the processor's errors */
const CALL_ERRORS = new Set(['unknown', 'retry', 'unavailable']);
/** the calls of one send or check: a token, the call, and both again after a refused token */
const CALLS_PER_ITEM = 4;
const LEASE_MARGIN_MS = 10_000;
/** final states a processor's later success must still reach (EXPIRED completes late; the others are held) */
const LATE_SUCCESS_FROM: readonly Status[] = ['EXPIRED', 'FAILED', 'CANCELLED'];

export interface Claimed {
  collection_id: bigint;
  mid_id: number;
  service_type: string;
  reference: string;
  callback_token: string;
  amount_minor: bigint;
  currency: string;
  vendor_reference: string | null;
  state: 'queued' | 'sending' | 'sent' | 'unknown' | 'settled' | 'held';
  send_attempts: number;
  checks: number;
  reported_amount_minor: bigint | null;
  reported_currency: string | null;
  collection_status: Status;
  gateway_reference: string;
  account_number: string | null;
  narration: string;
  expires_at: Date;
  card_masked: string | null;
  credentials_enc: string | null;
  trace_parent: string | null;
  /** a send's claim found it 'sending': its last worker died mid-call, with no outcome written */
  was_sending?: boolean;
}

export class ProcessorRequestService {
  constructor(private readonly s: Base & { collections: CollectionService; processors: Processors; refunds: Pick<RefundService, 'prompt'>; disbursements: Pick<DisbursementService, 'prompt'> }) {}

  private get settings() {
    return this.s.config.processors;
  }

  private leaseEnd(): Date {
    return new Date(this.s.now().getTime() + CALLS_PER_ITEM * this.settings.timeoutMs + LEASE_MARGIN_MS);
  }

  private context(r: Claimed): CallContext {
    return { midId: r.mid_id, credentials: openCredentials(masterKeys(this.s.config), r.credentials_enc) };
  }

  private processorOf(serviceType: string): Processor & { connector: NonNullable<Processor['connector']> } {
    const p = this.s.processors.get(serviceType);
    if (!p.connector) throw new Error(`service type ${serviceType} has no connector`);
    return p as Processor & { connector: NonNullable<Processor['connector']> };
  }

  // ---- sends --------------------------------------------------------------------------------

  /** Sends the requests that are due (new ones, retries), and asks about those whose worker died mid-send. */
  async sendDue(): Promise<number> {
    const claimed = await this.claimSends();
    await Promise.all(claimed.map((r) => this.sendOne(r)));
    if (claimed.length > 0) this.s.kick('processor-checks');
    return claimed.length;
  }

  /** The requests due a send, claimed for a lease and marked 'sending': a worker that dies now leaves them to the next after it. */
  claimSends(): Promise<Claimed[]> {
    return this.s.db.any<Claimed>(CLAIM_SENDS_SQL, { now: this.s.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
  }

  private async sendOne(r: Claimed): Promise<void> {
    if (r.was_sending) {
      // its last worker died after the call may have reached the processor: an unknown outcome, settled by
      // a status query (and sent again, same reference, only when the processor never received it)
      await this.afterSend(r, { kind: 'unknown', detail: 'the worker sending it stopped before writing the outcome' });
      return;
    }
    if (r.state !== 'sending') {
      // the claim marks only a PENDING collection's queued request: this one expired (or was decided)
      // before the processor took it, nothing to send any more
      await this.record(r, { state: 'settled', next_send_at: null });
      return;
    }
    await this.observed(r, 'send', async () => {
      let result: SendResult;
      try {
        result = await this.processorOf(r.service_type).connector.initiate(this.context(r), {
          reference: r.reference,
          gatewayReference: r.gateway_reference,
          amountMinor: r.amount_minor,
          currency: r.currency,
          accountNumber: r.account_number ?? '',
          narration: r.narration,
          callbackUrl: this.callbackUrl(r),
        });
      } catch (err) {
        result = { kind: 'unknown', detail: 'connector failed' };
        this.s.log.error('processor send failed', { service_type: r.service_type, gateway_reference: r.gateway_reference, err });
      }
      return result;
    }, (result) => this.afterSend(r, result));
  }

  private async afterSend(r: Claimed, result: SendResult): Promise<void> {
    const now = this.s.now();
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference, attempt: r.send_attempts };
    switch (result.kind) {
      case 'accepted': {
        this.s.log.info('processor request accepted', fields);
        const first = new Date(Math.min(now.getTime() + this.settings.checkScheduleMs[0], r.expires_at.getTime()));
        await this.record(r, { state: 'sent', next_send_at: null, next_check_at: first, checks: 0, last_error: null, vendor_reference: result.vendorReference ?? r.vendor_reference });
        return;
      }
      case 'refused':
        this.s.log.warn('processor refused request', { ...fields, detail: result.detail });
        await this.s.collections.applyOutcome(r.collection_id, 'FAILED', result.message);
        await this.record(r, { state: 'settled', next_send_at: null, last_error: result.detail });
        return;
      case 'retry':
        this.s.log.warn('processor request to be retried', { ...fields, detail: result.detail });
        await this.record(r, { state: 'queued', next_send_at: this.afterSendDelay(r, now), last_error: result.detail });
        return;
      case 'unknown':
        this.s.log.warn('processor request outcome unknown', { ...fields, detail: result.detail });
        await this.record(r, { state: 'unknown', next_send_at: null, next_check_at: this.afterSendDelay(r, now), last_error: result.detail });
        return;
    }
  }

  private afterSendDelay(r: Claimed, now: Date): Date {
    const schedule = this.settings.sendScheduleMs;
    return new Date(now.getTime() + schedule[Math.min(r.send_attempts, schedule.length - 1)]);
  }

  callbackUrl(r: { service_type: string; callback_token: string }): string {
    return `${this.s.config.publicBaseUrl}/callbacks/${r.service_type}/${r.callback_token}`;
  }

  // ---- checks (reconciliation) ----------------------------------------------------------------

  async checkDue(): Promise<number> {
    const claimed = await this.s.db.any<Claimed>(CLAIM_CHECKS_SQL, { now: this.s.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
    await Promise.all(claimed.map((r) => this.checkOne(r)));
    return claimed.length;
  }

  /**
   * A status query of one collection's request now, on the reconciliation's own path (a customer back
   * from a processor's page waits for it). Nothing when the processor does not have it.
   */
  async checkNow(collectionId: bigint): Promise<void> {
    const claimed = await this.s.db.oneOrNone<Claimed>(CLAIM_ONE_SQL, { now: this.s.now(), collectionId, leaseEnd: this.leaseEnd() });
    if (claimed) await this.checkOne(claimed);
  }

  /**
   * The customer can try again after a decline: a hosted checkout that offers it, not a direct card
   * (its details are gone after the one charge).
   */
  private retryableDecline(r: Claimed): boolean {
    const p = this.s.processors.get(r.service_type);
    return hasOwnCheckout(p) && p.checkout.retryAfterDecline && r.card_masked === null;
  }

  private async checkOne(r: Claimed): Promise<void> {
    // a settled request is asked again only when prompted about a collection that did not complete
    const state = r.state;
    if (state === 'queued' || state === 'sending' || state === 'held' || (state === 'settled' && !LATE_SUCCESS_FROM.includes(r.collection_status))) {
      await this.record(r, { next_check_at: null });
      return;
    }
    await this.observed(r, 'status', async () => {
      try {
        return await this.processorOf(r.service_type).connector.queryStatus(this.context(r), { reference: r.reference, vendorReference: r.vendor_reference });
      } catch (err) {
        this.s.log.error('processor status query failed', { service_type: r.service_type, gateway_reference: r.gateway_reference, err });
        return { kind: 'unavailable', detail: 'connector failed' } as QueryResult;
      }
    }, (result) => this.afterCheck(r, state, result));
  }

  /**
   * One call to a processor, timed per processor, MID and outcome, in its own span, then what follows
   * from its answer (inside the span, so the state change it makes belongs to the same trace).
   */
  private async observed<T extends { kind: string }>(r: Claimed, operation: ProcessorOperation, call: () => Promise<T>, then: (result: T) => Promise<void>): Promise<void> {
    const span = this.s.figures.processorSpan(r.service_type, r.mid_id, operation, r.trace_parent);
    await inSpan(span, async () => {
      const started = performance.now();
      const result = await call();
      const failed = CALL_ERRORS.has(result.kind);
      this.s.figures.processorCall(r.service_type, r.mid_id, operation, result.kind, (performance.now() - started) / 1000, failed);
      span.setAttribute('paycollect.processor.outcome', result.kind);
      if (failed) span.setStatus({ code: 2 });
      await then(result);
    });
  }

  private async afterCheck(r: Claimed, state: 'sent' | 'unknown' | 'settled', result: QueryResult): Promise<void> {
    if (result.kind === 'observed' && result.observed.unmapped) {
      this.s.log.error('unknown processor status read as PENDING', { service_type: r.service_type, gateway_reference: r.gateway_reference, vendor_status: result.observed.vendorStatus });
    }
    // the processor's own final word, kept apart from what we do with it (the settlement report compares them)
    if (result.kind === 'observed' && result.observed.status !== 'PENDING') await this.noteConfirmed(r, result.observed.status);
    const action = decide({
      state,
      collectionStatus: r.collection_status,
      expiresAt: r.expires_at,
      checks: r.checks,
      now: this.s.now(),
      result,
      amountMinor: r.amount_minor,
      currency: r.currency,
      reported: { amountMinor: r.reported_amount_minor, currency: r.reported_currency },
      checkScheduleMs: this.settings.checkScheduleMs,
      lateCheckMs: this.settings.lateCheckSeconds * 1000,
      retryableDecline: this.retryableDecline(r),
    });
    await this.carryOut(r, action);
  }

  private async carryOut(r: Claimed, a: CheckAction): Promise<void> {
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference };
    switch (a.do) {
      case 'complete': {
        const moved = await this.s.collections.applyOutcome(r.collection_id, 'COMPLETED', undefined, a.from);
        if (!moved) return this.completedElsewhere(r, a.from);
        if (a.from === 'EXPIRED') this.s.log.warn('late completion: the processor confirmed payment after expiry', fields);
        await this.record(r, { state: 'settled', next_check_at: null, last_error: null });
        return;
      }
      case 'fail':
        await this.s.collections.applyOutcome(r.collection_id, a.status, a.message);
        await this.record(r, { state: 'settled', next_check_at: null, last_error: null });
        return;
      case 'hold':
        this.s.log.error('payment held for the operator, not credited: resolve it with resolve-held', { ...fields, collection_status: r.collection_status, reason: a.reason });
        await this.record(r, { state: 'held', next_check_at: null, held_reason: a.reason });
        return;
      case 'expire':
        await this.s.collections.applyOutcome(r.collection_id, 'EXPIRED', a.message);
        await this.record(r, { next_check_at: a.nextCheckAt, last_error: a.note });
        return;
      case 'wait':
        await this.record(r, { next_check_at: a.nextCheckAt, last_error: a.note });
        return;
      case 'resend':
        await this.record(r, { state: 'queued', next_check_at: null, next_send_at: this.s.now() });
        this.s.kick('processor-sends');
        return;
      case 'settle':
        await this.record(r, { state: 'settled', next_check_at: null });
        return;
    }
  }

  /**
   * A confirmed success that found the collection no longer `from` (another path moved it between our
   * read and our write): decided again on what it is now, so the success is credited once or held,
   * never dropped.
   */
  private async completedElsewhere(r: Claimed, from: MoveFrom): Promise<void> {
    const { status } = await this.s.db.one<{ status: Status }>('SELECT status FROM collections WHERE id = $1', [r.collection_id]);
    if (status === 'COMPLETED') return this.carryOut(r, { do: 'settle' });
    if (status === 'EXPIRED' && from !== 'EXPIRED') return this.carryOut({ ...r, collection_status: status }, { do: 'complete', from: 'EXPIRED' });
    return this.carryOut({ ...r, collection_status: status }, { do: 'hold', reason: lateSuccessReason(status) });
  }

  /** confirmed_at is when the processor first gave this answer. */
  private async noteConfirmed(r: Claimed, outcome: 'COMPLETED' | 'FAILED' | 'CANCELLED'): Promise<void> {
    await this.s.db.none(
      `UPDATE processor_requests SET confirmed_outcome = $2,
         confirmed_at = CASE WHEN confirmed_outcome IS DISTINCT FROM $2 THEN $3 ELSE confirmed_at END WHERE collection_id = $1`,
      [r.collection_id, outcome, this.s.now()],
    );
  }

  private async record(r: Claimed, fields: Record<string, unknown>): Promise<void> {
    const names = Object.keys(fields);
    const sets = names.map((n, i) => `${n} = $${i + 3}`).join(', ');
    await this.s.db.none(`UPDATE processor_requests SET ${sets}, updated_at = $2 WHERE collection_id = $1`, [
      r.collection_id,
      this.s.now(),
      ...names.map((n) => fields[n]),
    ]);
  }

  // ---- callbacks ------------------------------------------------------------------------------

  /**
   * A processor's callback: found by its unguessable token (else NOT_FOUND, nothing changes), read
   * without trust, and turned into a status query due now. What it says can only fill in what the
   * query cannot tell (the vendor's id of the request, the amount it says was paid, the receipt of the
   * payment: the last one said before the completion is confirmed, afterwards only when none is known;
   * a refund confirms the receipt with the processor before naming it).
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<void> {
    if (!this.s.processors.has(serviceType) || !/^[A-Za-z0-9_-]{16,64}$/.test(callbackToken)) throw notFound();
    const processor = this.s.processors.get(serviceType);
    if (!processor.connector) throw notFound();
    const note = processor.connector.parseCallback(body);
    const now = this.s.now();
    const hit = await this.s.db.oneOrNone<{ collection_id: bigint }>(
      `UPDATE processor_requests p SET
         next_check_at = CASE WHEN p.state IN ('sent', 'unknown') OR (p.state = 'settled' AND c.status = ANY($7))
           THEN LEAST(COALESCE(p.next_check_at, $3), $3) ELSE p.next_check_at END,
         vendor_reference = COALESCE(p.vendor_reference, $4),
         reported_amount_minor = COALESCE($5, p.reported_amount_minor),
         reported_currency = COALESCE($6, p.reported_currency),
         receipt = CASE WHEN p.state IN ('queued', 'sending', 'sent', 'unknown') OR p.receipt IS NULL THEN COALESCE($8, p.receipt) ELSE p.receipt END,
         updated_at = $3
       FROM collections c
       WHERE p.callback_token = $1 AND p.service_type = $2 AND c.id = p.collection_id
       RETURNING p.collection_id`,
      [callbackToken, serviceType, now, note.vendorReference, note.reported?.amountMinor ?? null, note.reported?.currency ?? null, LATE_SUCCESS_FROM, note.receipt ?? null],
    );
    if (!hit) {
      // not a collection's: a refund's or a disbursement's callback (src/refunds/, src/disbursements/), or nobody's
      if (await this.s.refunds.prompt(serviceType, callbackToken, body)) return;
      if (await this.s.disbursements.prompt(serviceType, callbackToken, body)) return;
      throw notFound();
    }
    this.s.kick('processor-checks');
  }

  // ---- operator -------------------------------------------------------------------------------

  /** A collection's processor request for the operator's view; null for the simulator's collections. */
  /** What the operator sees of these collections' processor requests (one read for a whole page). */
  async viewsOf(collectionIds: bigint[]): Promise<Map<bigint, ProcessorRequestView>> {
    if (collectionIds.length === 0) return new Map();
    const rows = await this.s.db.any<ProcessorRequestRow & { collection_id: bigint }>(VIEWS_OF_SQL, { ids: collectionIds });
    return new Map(rows.map(({ collection_id, ...r }) => [collection_id, toProcessorRequestView(r)]));
  }

  /**
   * The operator's decision on a held payment, once: the state change (credit and notification, as any
   * completion or failure) and the decision on the request commit together. A success held because it
   * came after the collection was FAILED or CANCELLED: COMPLETED credits it as a late completion (from
   * that state), FAILED leaves the collection as the merchant knows it (the operator returns the money at
   * the processor). INVALID_STATE when the request is not held or the collection moved meanwhile; nothing
   * changes then.
   */
  async resolveHeld(collectionId: bigint, outcome: 'COMPLETED' | 'FAILED', note: string, by: string): Promise<void> {
    const finished = await this.s.db.tx(async (t) => {
      const held = await t.oneOrNone<{ status: Status }>(
        `SELECT c.status FROM processor_requests p JOIN collections c ON c.id = p.collection_id
          WHERE p.collection_id = $1 AND p.state = 'held' FOR UPDATE`,
        [collectionId],
      );
      if (!held) throw new AppError('INVALID_STATE', 'This collection has no held processor request: only a held payment can be resolved, once');
      const late = held.status !== 'PENDING';
      // a late success the operator refuses leaves the collection as the merchant knows it: nothing moves
      const keep = late && outcome === 'FAILED';
      const moved = keep ? null : await this.s.collections.move(t, collectionId, outcome, undefined, late ? (held.status as MoveFrom) : 'PENDING');
      if (!keep && !moved) throw new AppError('INVALID_STATE', `The collection is ${held.status}: it can no longer be resolved`);
      await t.none(
        `UPDATE processor_requests SET state = 'settled', resolved_outcome = $2, resolution_note = $3, resolved_by = $4, resolved_at = $5, updated_at = $5
          WHERE collection_id = $1`,
        [collectionId, outcome, note, by, this.s.now()],
      );
      return moved;
    });
    // within an operator's audited change, counted once that change commits
    if (finished) afterCommit(() => this.s.collections.finished([finished]));
    this.s.kick('webhooks');
    this.s.kick('emails');
  }

  /** Fetch a token at the MID's processor with its stored credentials. */
  async checkMidCredentials(midId: number): Promise<CredentialCheck & { mid_id: number; service_type: string }> {
    const mid = await this.s.db.oneOrNone<{ service_type: string; credentials_enc: string | null }>(
      'SELECT service_type, credentials_enc FROM mids WHERE id = $1',
      [midId],
    );
    if (!mid) throw new AppError('NOT_FOUND', 'No MID with this id');
    const processor = this.s.processors.get(mid.service_type);
    if (!processor.connector) return { mid_id: midId, service_type: mid.service_type, ok: true, detail: 'The built-in simulator needs no credentials' };
    const check = await processor.connector.checkCredentials({ midId, credentials: openCredentials(masterKeys(this.s.config), mid.credentials_enc) });
    return { mid_id: midId, service_type: mid.service_type, ...check };
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'processor-sends', intervalMs: 500, run: () => this.sendDue() },
      { name: 'processor-checks', intervalMs: 500, run: () => this.checkDue() },
    ];
  }
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No such callback');
}
