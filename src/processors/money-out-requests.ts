// What the engine's adapters of money out (a refund, a payout: src/refunds/processor-calls.ts and
// src/disbursements/processor-calls.ts) share, declared here with the engine's contract (requests.ts), below
// the wings that supply them. Their request is their own row (keyed by its id, its state in send_state,
// sent while the row is PENDING), which their wing's one state change moves: the processor's first word
// moves it to PROCESSING or FAILED; a status query without an answer asks again on the check schedule; a
// callback may fill in the processor's id of the request, and is the answer only on the request's own URL
// naming the id its send was given (else a prompt); a processor's signed webhook prompts the requests it
// names. Each adapter says only what differs: what to send and ask, and what the processor's answer does.
import type { QueryFile } from 'pg-promise';
import { WingFlow } from '../base';
import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../log';
import { stepAfter } from './requests';
import type { CallbackHit, CallbackReading, ClaimedRequest, QueueShape, RequestAdapter, RequestKind, RequestRecord, SendAnswer } from './requests';
import type { CallbackNote, CallContext, Observed, QueryResult } from './types';

/** What a money-out adapter uses of its wing's parts. */
export interface MoneyOutParts {
  db: () => Db;
  config: Pick<Config, 'processors'>;
  log: Logger;
  now: () => Date;
  kick: (worker: string) => void;
}

/** A move of its wing's one state change, as the processor's first word calls for it. */
export interface FirstWordMove {
  to: 'PROCESSING' | 'FAILED';
  failureReason?: string | null;
  vendorReference?: string | null;
  /** the link the customer claims a refund by, when the processor gave one (never for a payout) */
  claimUrl?: string | null;
  nextCheckAt?: Date | null;
}

/** Its wing's one state change, as far as the first word goes. */
export interface MoneyOutChanges {
  move(id: bigint, m: FirstWordMove): Promise<unknown>;
}

/** The types of one money-out kind: its claim, its connector, its processor's statuses, its wing's parts and state change. */
export interface MoneyOutTypes {
  claim: ClaimedRequest;
  connector: object;
  status: string;
  parts: MoneyOutParts;
  changes: MoneyOutChanges;
}

/** Where a money-out kind's requests live: its own rows in `table`, with what its claim joins and returns. */
export function moneyOutQueue(table: string, s: Pick<QueueShape, 'from' | 'where' | 'watch' | 'returning'>): QueueShape {
  return { table, key: 'id', state: 'send_state', sendable: "q.status = 'PENDING'", ownerStatus: 'q.status', ...s };
}

/** A status query's result that is not the processor's word on the request. */
export type Unanswered = Exclude<QueryResult<string>, { kind: 'observed' }>;

type C<T extends MoneyOutTypes> = T['claim'];
type K<T extends MoneyOutTypes> = T['connector'];
type S<T extends MoneyOutTypes> = T['status'];

export abstract class MoneyOutAdapter<T extends MoneyOutTypes> extends WingFlow<T['parts'], T['changes']> implements RequestAdapter<T['claim']> {
  abstract readonly kind: RequestKind;
  abstract readonly queue: QueueShape;

  /** A service type's connector of this kind; null when it offers none. */
  protected abstract connectorOf(serviceType: string): K<T> | null;
  /** A callback body, read without trust by the connector. */
  protected abstract readCallback(connector: K<T>, body: unknown): CallbackNote<S<T>>;
  /** What the processor's word in a status query's answer does to the request's row. */
  protected abstract observed(c: C<T>, o: Observed<S<T>>, again: Date): Promise<void>;
  /** What the processor's word in a callback that is the answer does to the request's row. */
  protected abstract callbackAnswer(hit: CallbackHit, o: Observed<S<T>>): Promise<void>;

  abstract send(ctx: CallContext, c: C<T>, callbackUrl: string): Promise<SendAnswer>;
  abstract query(ctx: CallContext, c: C<T>, callbackUrl: string): Promise<QueryResult<string>>;
  abstract record(c: C<T>, r: RequestRecord): Promise<void>;

  protected connector(serviceType: string): K<T> {
    const c = this.connectorOf(serviceType);
    if (!c) throw new Error(`service type ${serviceType} offers no ${this.kind}s`);
    return c;
  }

  offers(serviceType: string): boolean {
    return this.connectorOf(serviceType) !== null;
  }

  /** The check schedule's step `n` from now. */
  protected askedAt(n: number): Date {
    return stepAfter(this.p.now(), this.p.config.processors.checkScheduleMs, n);
  }

  async accepted(c: C<T>, a: { vendorReference: string | null; claimUrl?: string | null }): Promise<void> {
    await this.changes.move(c.id, { to: 'PROCESSING', vendorReference: a.vendorReference, claimUrl: a.claimUrl, nextCheckAt: this.askedAt(0) });
  }

  async refused(c: C<T>, a: { message: string }): Promise<void> {
    await this.changes.move(c.id, { to: 'FAILED', failureReason: a.message });
  }

  unsent(c: C<T>): Promise<void> {
    return this.record(c, { state: c.state, nextSendAt: null, nextCheckAt: c.next_check_at, lastError: c.last_error });
  }

  async checked(c: C<T>, result: QueryResult<string>): Promise<void> {
    if (result.kind === 'observed') return this.observed(c, result.observed as Observed<S<T>>, this.askedAt(c.checks));
    return this.unanswered(c, result);
  }

  /** A status query without the processor's word (it does not know the request, or no answer came): asked again on the schedule. */
  protected unanswered(c: C<T>, result: Unanswered): Promise<void> {
    const note = result.kind === 'not_found' ? 'not found at the processor' : result.detail;
    return this.record(c, { state: c.state, nextSendAt: null, nextCheckAt: this.askedAt(c.checks), lastError: note });
  }

  /**
   * A processor's callback about one of its requests. What it says is taken as the answer only from a
   * vendor whose results come this way (`observed`: M-Pesa's asynchronous results) and only when it names
   * the processor's id the send was given; then no status query follows (a query's result would come back
   * here, and so on). Else it may only fill in that id, when none is known, and it is a prompt.
   */
  async callback(hit: CallbackHit, serviceType: string, body: unknown): Promise<CallbackReading> {
    const note = this.readCallback(this.connector(serviceType), body);
    if (note.vendorReference !== null) {
      await this.db.none(`UPDATE ${this.queue.table} SET vendor_reference = COALESCE(vendor_reference, $2) WHERE id = $1`, [hit.id, note.vendorReference]);
    }
    const o = note.observed;
    if (!o || o.unmapped || note.vendorReference === null || note.vendorReference !== hit.vendor_reference) return { answered: false };
    await this.callbackAnswer(hit, o);
    return { answered: true };
  }

  /**
   * A processor's signed webhook (checked by the caller) that may name some of its requests: `statement`
   * brings their next status query forward (the values `named` reads from the body, null when it names
   * none). Returns how many it prompted.
   */
  protected async promptNamed(serviceType: string, body: unknown, statement: QueryFile, named: (note: CallbackNote<S<T>>) => Record<string, unknown> | null): Promise<number> {
    const connector = this.connectorOf(serviceType);
    if (!connector) return 0;
    const values = named(this.readCallback(connector, body));
    if (!values) return 0;
    const hits = await this.db.any(statement, { now: this.p.now(), serviceType, ...values });
    if (hits.length > 0) this.p.kick(`${this.kind}-checks`);
    return hits.length;
  }
}
