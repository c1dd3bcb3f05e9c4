// The one engine of requests to processors (docs/contract/processors.md): every kind (a collection's
// charge, a refund, a payout) is claimed, sent, asked about and prompted here, by the same rules; each
// kind's adapter (processors/requests.ts) says what to send, how to ask and what an answer does to its
// rows. The rules, stated once:
// - A request is written first (with its owner, in one transaction) and sent by a worker under our own
//   reference, which never changes. The claim of a send marks it 'sending' before the call.
// - A lost answer (no answer after the request may have left, an answer that cannot be read) is an
//   unknown outcome: a status query follows, never a resend. A claim that finds 'sending' (its worker died
//   mid-call) reads it the same way.
// - A resend, under the same reference, follows only the processor's clear "not found" for a request of
//   unknown outcome, or its clear word that it did not take it ('retry': nothing reached it, or it refused
//   it for a reason that is not the payment's).
// - A callback is a prompt, never proof: it brings the next status query forward, only for a request
//   awaiting the processor's word; for a final one only while the check schedule lasts (a late success, a
//   reversal), and never for one whose callback is itself the answer. So status queries stay bounded by
//   PROCESSOR_CHECK_SCHEDULE whatever prompts arrive.
// - A claim holds a lease past the calls' deadlines and names its process: when that process stops
//   beating (workers/liveness.ts), the next claim takes its requests over at once, not at the lease's end.
// - Every call is traced (continuing the trace that queued it) and counted per processor, MID and kind.
import type { Base } from '../base';
import { masterKeys } from '../crypto/secretbox';
import { openCredentials } from '../processors/credentials';
import { stepAfter } from '../processors/requests';
import type { CallbackHit, ClaimedRequest, RequestAdapter, RequestKind, SendAnswer } from '../processors/requests';
import { callbackLookupSql, kindStatements } from './queue';
import type { KindStatements } from './queue';
import type { CallContext, QueryResult } from '../processors/types';
import { inSpan } from '../telemetry';
import type { ProcessorOperation } from '../telemetry/figures';
import { LIVENESS_STALE_MS } from '../workers/liveness';

/** Requests of one kind sent or checked per worker run. */
const BATCH = 20;
/** the calls of one send or check: a token, the call, and both again after a refused token */
const CALLS_PER_ITEM = 4;
const LEASE_MARGIN_MS = 10_000;
/** a call's outcomes that are not a usable answer: counted as the processor's errors */
const CALL_ERRORS = new Set(['unknown', 'retry', 'unavailable']);

/** What the engine is built from besides Base: this process's id (its claims name it). */
export interface EngineParts {
  processId: string;
}

type AnyAdapter = RequestAdapter<ClaimedRequest>;

interface Kind {
  adapter: AnyAdapter;
  sql: KindStatements;
}

export class RequestEngine {
  private readonly kinds: ReadonlyMap<RequestKind, Kind>;
  private readonly lookup: string;

  constructor(
    private readonly s: Base & EngineParts,
    adapters: readonly AnyAdapter[],
  ) {
    this.kinds = new Map(adapters.map((a) => [a.kind, { adapter: a, sql: kindStatements(a.queue) }]));
    this.lookup = callbackLookupSql(adapters);
  }

  private get settings() {
    return this.s.config.processors;
  }

  private after(schedule: readonly number[], n: number): Date {
    return stepAfter(this.s.now(), schedule, n);
  }

  private claimValues() {
    const now = this.s.now();
    return {
      now, limit: BATCH, processId: this.s.processId,
      // the lease: past the deadlines of a send's or a query's calls
      leaseEnd: new Date(now.getTime() + CALLS_PER_ITEM * this.settings.timeoutMs + LEASE_MARGIN_MS),
      staleBefore: new Date(now.getTime() - LIVENESS_STALE_MS),
    };
  }

  /**
   * A status query of one request now (a customer back from a processor's page waits for it), on the
   * engine's own path. Nothing when the processor does not have it.
   */
  async checkNow(kind: RequestKind, id: bigint): Promise<void> {
    const claimed = await this.s.db.oneOrNone<ClaimedRequest>(this.kind(kind).sql.claimOne, { ...this.claimValues(), id });
    if (claimed) await this.checkOne(kind, claimed);
  }

  /** The sends due of one kind, claimed: each with its lease, this process's name, and the 'sending' mark. */
  claimSends(kind: RequestKind): Promise<ClaimedRequest[]> {
    return this.s.db.any<ClaimedRequest>(this.kind(kind).sql.claimSends, this.claimValues());
  }

  /** The status queries due of one kind, claimed with their lease and this process's name. */
  claimChecks(kind: RequestKind): Promise<ClaimedRequest[]> {
    return this.s.db.any<ClaimedRequest>(this.kind(kind).sql.claimChecks, this.claimValues());
  }

  private kind(kind: RequestKind): Kind {
    const k = this.kinds.get(kind);
    if (!k) throw new Error(`no adapter of ${kind} requests`);
    return k;
  }

  private context(c: ClaimedRequest): CallContext {
    return { midId: c.mid_id ?? 0, credentials: openCredentials(masterKeys(this.s.config), c.credentials_enc) };
  }

  callbackUrl(c: { service_type: string; callback_token: string }): string {
    return `${this.s.config.publicBaseUrl}/callbacks/${c.service_type}/${c.callback_token}`;
  }

  private chosen(only?: RequestKind): Kind[] {
    return only ? [this.kind(only)] : [...this.kinds.values()];
  }

  // ---- sends ------------------------------------------------------------------------------------

  /** Sends what is due (new requests, retries, a resend after "not found"), every kind or one; returns how many were claimed. */
  sendDue(only?: RequestKind): Promise<number> {
    return this.due(only, (kind) => this.claimSends(kind), (kind, c) => this.sendOne(kind, c));
  }

  /** What is due of every kind or one, claimed by `claim` and each carried out by `one`; returns how many were claimed. */
  private async due(only: RequestKind | undefined, claim: (kind: RequestKind) => Promise<ClaimedRequest[]>, one: (kind: RequestKind, c: ClaimedRequest) => Promise<void>): Promise<number> {
    const counts = await Promise.all(this.chosen(only).map(async ({ adapter }) => {
      const claimed = await claim(adapter.kind);
      await Promise.all(claimed.map((c) => one(adapter.kind, c)));
      return claimed.length;
    }));
    return counts.reduce((x, y) => x + y, 0);
  }

  /** One claimed send (also how a test drives a claim it made by hand). */
  async sendOne(kind: RequestKind, c: ClaimedRequest): Promise<void> {
    const a = this.kind(kind).adapter;
    if (c.was_sending && !a.onlyReads?.(c)) {
      // its last worker died after the call may have reached the processor: an unknown outcome
      return this.afterSend(a, c, { kind: 'unknown', detail: 'the worker sending it stopped before writing the outcome' });
    }
    if (c.state !== 'sending') return a.unsent(c);
    // a connector that throws may have sent: an unknown outcome
    const thrown: SendAnswer = { kind: 'unknown', detail: 'connector failed' };
    await this.observed(a.kind, c, 'send', () => a.send(this.context(c), c, this.callbackUrl(c)), thrown, (answer) => this.afterSend(a, c, answer));
  }

  private async afterSend(a: AnyAdapter, c: ClaimedRequest, r: SendAnswer): Promise<void> {
    const fields = { kind: a.kind, service_type: c.service_type, gateway_reference: c.gateway_reference, attempt: c.send_attempts };
    const sends = this.settings.sendScheduleMs;
    switch (r.kind) {
      case 'accepted':
        this.s.log.info('processor request accepted', fields);
        return a.accepted(c, r);
      case 'refused':
        this.s.log.warn('processor refused the request', { ...fields, detail: r.detail });
        return a.refused(c, r);
      case 'retry':
        this.s.log.warn('processor request to be sent again', { ...fields, detail: r.detail });
        return a.record(c, { state: 'queued', nextSendAt: this.after(sends, c.send_attempts), nextCheckAt: null, lastError: r.detail });
      case 'unknown':
        this.s.log.warn('processor request outcome unknown: a status query follows', { ...fields, detail: r.detail });
        return a.record(c, { state: 'unknown', nextSendAt: null, nextCheckAt: this.after(sends, c.send_attempts), lastError: r.detail });
      case 'other':
        if (!a.other) throw new Error(`a ${a.kind} adapter answered a step it does not take`);
        return a.other(c, r);
    }
  }

  // ---- status queries -----------------------------------------------------------------------------

  /** Asks about what is due, every kind or one; returns how many were claimed. */
  checkDue(only?: RequestKind): Promise<number> {
    return this.due(only, (kind) => this.claimChecks(kind), (kind, c) => this.checkOne(kind, c));
  }

  /** One claimed status query. */
  async checkOne(kind: RequestKind, c: ClaimedRequest): Promise<void> {
    const a = this.kind(kind).adapter;
    if (c.state !== 'sent' && c.state !== 'unknown' && !c.watch) {
      // not with the processor (queued, sending, held) or final for good: nothing to ask
      return a.record(c, { state: c.state, nextSendAt: c.next_send_at, nextCheckAt: null, lastError: c.last_error });
    }
    const thrown: QueryResult<string> = { kind: 'unavailable', detail: 'connector failed' };
    await this.observed(a.kind, c, 'status', () => a.query(this.context(c), c, this.callbackUrl(c)), thrown, (result) => this.afterCheck(a, c, result));
  }

  private async afterCheck(a: AnyAdapter, c: ClaimedRequest, result: QueryResult<string>): Promise<void> {
    if (result.kind === 'observed' && result.observed.unmapped) {
      this.s.log.error('unknown processor status read as PENDING', { kind: a.kind, service_type: c.service_type, gateway_reference: c.gateway_reference, vendor_status: result.observed.vendorStatus });
    }
    if (result.kind === 'not_found' && c.state === 'unknown') {
      // it never reached the processor: sent again, under the same reference
      this.s.log.warn('processor does not know a request of unknown outcome: sent again under the same reference', { kind: a.kind, gateway_reference: c.gateway_reference });
      await a.record(c, { state: 'queued', nextSendAt: this.s.now(), nextCheckAt: null, lastError: 'not found at the processor' });
      this.s.kick(`${a.kind}-sends`);
      return;
    }
    await a.checked(c, result);
  }

  /**
   * One call to a processor, timed per processor, MID, kind and outcome, in its own span continuing the
   * trace that queued the request, then what follows from its answer, inside the span. A connector that
   * throws is logged, and its answer is `onThrow`.
   */
  private async observed<T extends { kind: string }>(kind: RequestKind, c: ClaimedRequest, operation: ProcessorOperation, call: () => Promise<T>, onThrow: T, then: (result: T) => Promise<void>): Promise<void> {
    const midId = c.mid_id ?? 0;
    const span = this.s.figures.processorSpan(c.service_type, midId, kind, operation, c.trace_parent);
    await inSpan(span, async () => {
      const started = performance.now();
      let result = onThrow;
      try {
        result = await call();
      } catch (err) {
        this.s.log.error(operation === 'send' ? 'processor send failed' : 'processor status query failed', { kind, service_type: c.service_type, gateway_reference: c.gateway_reference, err });
      }
      const failed = CALL_ERRORS.has(result.kind);
      this.s.figures.processorCall(c.service_type, midId, kind, operation, result.kind, (performance.now() - started) / 1000, failed);
      span.setAttribute('paycollect.processor.outcome', result.kind);
      if (failed) span.setStatus({ code: 2 });
      // what follows from the answer (a state change, its webhook) belongs to the same trace
      await then(result);
    });
  }

  // ---- callbacks ------------------------------------------------------------------------------------

  /**
   * A processor's callback: its unguessable token finds its request, whatever the kind, in one read; the
   * adapter reads the body (without trust); a prompt brings the next status query forward when the rules
   * allow. False when no request of this service type has the token.
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<boolean> {
    const hits = await this.s.db.any<CallbackHit>(this.lookup, { callbackToken, serviceType });
    const hit = hits.find((h) => this.kinds.get(h.kind)?.adapter.offers(serviceType));
    if (!hit) return false;
    const k = this.kind(hit.kind);
    const reading = await k.adapter.callback(hit, serviceType, body);
    if (reading.answered || !this.mayAsk(hit)) return true;
    await this.s.db.none(k.sql.askSoon, { id: hit.id, now: this.s.now() });
    this.s.kick(`${hit.kind}-checks`);
    return true;
  }

  /** A prompt may make a status query: of a request awaiting the processor's word; of a watched final one while the check schedule lasts. */
  mayAsk(h: { state: string; watch: boolean; checks: number }): boolean {
    return h.state === 'sent' || h.state === 'unknown' || (h.watch && h.checks < this.settings.checkScheduleMs.length);
  }

}
