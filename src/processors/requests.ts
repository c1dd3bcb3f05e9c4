// What the one processor-request engine (src/processor-requests/) asks of each kind of request it sends
// and checks: a collection's charge, a refund, a payout, and the kinds to come. The engine owns the queue
// (the claim with a lease and its takeover when a process dies), the worker, the callback lookup, the
// rules of sending and asking, the spans and the per-MID figures; an adapter says what to send, how to
// ask, and what the processor's word does to its own rows. Declared here, below the wings that supply
// adapters, so that they can name it without importing the engine above them.
import type { CallContext, QueryResult, SendResult } from './types';

/** The kinds of request the engine carries; the label of their spans and figures. */
export type RequestKind = 'collection' | 'refund' | 'payout';

/**
 * Where a request is on its way to the processor: queued (to send at next_send_at), sending (claimed for
 * a send: the call may be under way), sent (the processor has it), unknown (it may have it: a status query
 * decides), settled (the processor's final word is in) or held (for the operator; for a payout, for an
 * owner's approval: not sent).
 */
export type RequestState = 'queued' | 'sending' | 'sent' | 'unknown' | 'settled' | 'held';

/** What every kind's claim returns, under these names (each adapter's claim statement selects them). */
export interface ClaimedRequest {
  /** the owner's id: the collection's, the refund's, the disbursement's */
  id: bigint;
  service_type: string;
  mid_id: number | null;
  gateway_reference: string;
  /** our reference at the processor, the same on every send */
  reference: string;
  callback_token: string;
  vendor_reference: string | null;
  state: RequestState;
  send_attempts: number;
  checks: number;
  next_send_at: Date | null;
  next_check_at: Date | null;
  last_error: string | null;
  credentials_enc: string | null;
  trace_parent: string | null;
  /** a send's claim found it 'sending': its last worker died mid-call, with no outcome written */
  was_sending: boolean;
  /** final, but the processor's word may still change it (a late success, a reversal): asked while the check schedule lasts */
  watch: boolean;
}

/** What a send or a status query that moved nothing leaves: the request's state and clocks. */
export interface RequestRecord {
  state: RequestState;
  nextSendAt: Date | null;
  nextCheckAt: Date | null;
  lastError: string | null;
  /** the processor's id of the request, when an answer gave one (kept when null) */
  vendorReference?: string | null;
}

/** What a send's answer may be: the processor's four, or an adapter's own step before the send (answered by its `other`). */
export type SendAnswer = SendResult | { kind: 'accepted'; vendorReference: string | null; claimUrl?: string | null } | { kind: 'other'; detail: string; value: unknown };

/** A callback, found by the engine's one lookup. */
export interface CallbackHit {
  kind: RequestKind;
  id: bigint;
  state: RequestState;
  /** the owner's status (the collection's, the refund's, the disbursement's) */
  status: string;
  checks: number;
  watch: boolean;
  /** the processor's id of the request as known before this callback */
  vendor_reference: string | null;
}

/** What an adapter made of a callback body about one of its requests. */
export type CallbackReading =
  /** the body answers (an asynchronous result on the request's own URL naming the id its send was given): taken, no call */
  | { answered: true }
  /** a prompt to ask the processor: the engine brings the next status query forward when its rules allow */
  | { answered: false };

/**
 * Where a kind's requests live, for the engine's statements (its claims, its callback lookup), which it
 * composes once from these parts into constant text. `q` is the request's row; `from` and `where` join what
 * the call needs (written as `, table alias` and `AND condition`).
 */
export interface QueueShape {
  table: string;
  /** the key column: the owner's id */
  key: string;
  /** the request's state column (RequestState) */
  state: string;
  from: string;
  where: string;
  /** when a queued request may be marked 'sending': its owner still waits for it */
  sendable: string;
  /** final, but the processor's word may still change it (a late success, a reversal) */
  watch: string;
  /** the owner's status, as text, for the callback's reader */
  ownerStatus: string;
  /** the claim's columns besides ClaimedRequest's */
  returning: string;
}

export interface RequestAdapter<C extends ClaimedRequest = ClaimedRequest> {
  readonly kind: RequestKind;
  readonly queue: QueueShape;
  /** Whether a service type takes this kind at all (its connector offers it). */
  offers(serviceType: string): boolean;
  send(ctx: CallContext, c: C, callbackUrl: string): Promise<SendAnswer>;
  query(ctx: CallContext, c: C, callbackUrl: string): Promise<QueryResult<string>>;
  /** The claimed step is only a read (asking, not sending): a dead worker's claim of it is simply taken again. */
  onlyReads?(c: C): boolean;
  /** The processor has it: the owner's rows move (PROCESSING) or the request is recorded sent. */
  accepted(c: C, r: { vendorReference: string | null; claimUrl?: string | null }): Promise<void>;
  /** The processor will never take it: the owner fails. */
  refused(c: C, r: { message: string; detail: string }): Promise<void>;
  /** An adapter's own step (its `send` answered `other`). */
  other?(c: C, r: { detail: string; value: unknown }): Promise<void>;
  /** A claimed send that is not to go out any more (the owner moved on before it was sent). */
  unsent(c: C): Promise<void>;
  /**
   * A status query's answer, but for the engine's own rule (a request of unknown outcome the processor
   * does not know is sent again): what it does to the owner's rows, or when to ask next.
   */
  checked(c: C, result: QueryResult<string>): Promise<void>;
  /** A send or status query that moved nothing: the request's state and clocks (and the claim let go). */
  record(c: C, r: RequestRecord): Promise<void>;
  /** A callback body about one of its requests, read without trust; its notes written. */
  callback(hit: CallbackHit, serviceType: string, body: unknown): Promise<CallbackReading>;
}

/** `schedule`'s step `n` from `now` (the last step repeats): when a request is sent or asked next. */
export function stepAfter(now: Date, schedule: readonly number[], n: number): Date {
  return new Date(now.getTime() + schedule[Math.min(Math.max(n, 0), schedule.length - 1)]);
}

/** What a merchant reads on a PENDING refund or disbursement, from where its request is (else `now` stays). */
export function pendingReasonOf<R extends string>(state: RequestState, now: R | null): R | 'awaiting_processor' | 'outcome_unknown' | null {
  if (state === 'queued') return 'awaiting_processor';
  if (state === 'unknown') return 'outcome_unknown';
  if (state === 'sent') return null;
  return now;
}
