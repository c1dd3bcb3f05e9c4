// What a request that failed on a lost database may promise. "Nothing was changed" is a promise: it
// holds only when no change of this request reached the server, or the one that did was refused there.
// Once a write (a statement outside a transaction, or the COMMIT of a transaction that wrote) has been
// sent, a connection that dies before its answer (a primary killed, a failover, a reset) leaves the
// outcome unknown: the change may have committed, even on the standby that is primary now. Such a
// request is answered OUTCOME_UNKNOWN, never SERVICE_UNAVAILABLE, so the caller retries the same request
// (idempotent on merchant_reference) instead of sending a new one and charging twice.
import { AsyncLocalStorage } from 'node:async_hooks';
import { statementText as textOf } from './statement-text';

interface WritesSent {
  count: number;
  /** the last write sent (its text), to recognise the error of that very statement */
  last: string | null;
}

const current = new AsyncLocalStorage<WritesSent>();
/** connections whose open transaction has sent a write: its COMMIT is a write */
const writingTransactions = new WeakSet<object>();
/** errors after which the outcome of the request is unknown */
const unknownOutcomes = new WeakSet<object>();

/** Statements that change data (or schema). A read (SELECT without these) changes nothing. */
const WRITE = /\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|COPY|CALL|CREATE|ALTER|DROP|GRANT|REVOKE|nextval|setval)\b/i;
// the end of a whole transaction; a savepoint's (ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT) leaves the
// transaction's earlier writes in place
const COMMIT = /^\s*(COMMIT|END)\s*;?\s*$/i;
const ROLLBACK = /^\s*(ROLLBACK|ABORT)\s*;?\s*$/i;
/**
 * Whether each statement text writes, remembered: a hot statement's text is constant (request-to-pay's
 * is about 5 KB with its first INSERT 1.5 KB in), so it is scanned once instead of on every request.
 * Texts that carry their values are new each time: the memory is emptied when it reaches its bound.
 */
const writes = new Map<string, boolean>();
const WRITES_REMEMBERED = 512;

function isWrite(text: string): boolean {
  let known = writes.get(text);
  if (known === undefined) {
    if (writes.size >= WRITES_REMEMBERED) writes.clear();
    known = WRITE.test(text);
    writes.set(text, known);
  }
  return known;
}
/**
 * Failures of a statement that was never executed: the client found its connection already broken
 * before sending, the server refused the session, or a read-only (demoted, not yet promoted) server
 * refused the write itself.
 */
const NOT_EXECUTED_MESSAGE = /not queryable|Client was closed/i;
const NOT_EXECUTED_CODES = new Set(['25006', '57P03', '53300', 'ECONNREFUSED']);

/** Runs `fn` (one request's work) counting the writes it sends to the database. */
export function countingWrites<T>(fn: () => Promise<T>): Promise<T> {
  return current.run({ count: 0, last: null }, fn);
}

/** Writes counted apart from any request's (countedApart), for each request they were made for to take over. */
export interface WritesApart {
  readonly sent: WritesSent;
}

/**
 * Runs `fn`, work done for several requests at once (a group commit's batch), counting its writes apart
 * from the request whose context started it; each request it was done for then adds them to its own
 * count with `takeOver`, so each may be answered OUTCOME_UNKNOWN when the batch's write was sent and lost.
 */
export function countedApart<T>(fn: () => Promise<T>): { done: Promise<T> } & WritesApart {
  const sent: WritesSent = { count: 0, last: null };
  return { done: current.run(sent, fn), sent };
}

/** Counts, for the request running now, the writes `apart` sent on its behalf. */
export function takeOver(apart: WritesApart): void {
  const own = current.getStore();
  if (!own || apart.sent.count === 0) return;
  own.count += apart.sent.count;
  own.last = apart.sent.last;
}

/** pg-promise's `query` event: a statement is about to be sent, in the caller's async context. */
export function noteStatement(e: { client?: object; query?: unknown; ctx?: { inTransaction?: boolean } }): void {
  // outside a request (the workers, start-up) nothing is counted: skip reading the statement at all
  if (!current.getStore()) return;
  const text = textOf(e.query);
  if (e.ctx?.inTransaction) {
    if (!e.client) return;
    if (COMMIT.test(text)) {
      if (writingTransactions.delete(e.client)) noteWrite(text);
    } else if (ROLLBACK.test(text)) writingTransactions.delete(e.client);
    else if (isWrite(text)) writingTransactions.add(e.client);
    return;
  }
  if (isWrite(text)) noteWrite(text);
}

function noteWrite(text: string): void {
  const sent = current.getStore();
  if (!sent) return;
  sent.count += 1;
  sent.last = text;
}

function neverExecuted(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && NOT_EXECUTED_CODES.has(code)) || (typeof message === 'string' && NOT_EXECUTED_MESSAGE.test(message));
}

/**
 * Called with an outage error in the request's context: marks it when a write of this request may
 * have committed. The only write sent being the failed statement itself, refused before it ran, is
 * still "nothing changed".
 */
export function judgeOutcome(err: unknown): void {
  const sent = current.getStore();
  if (!sent || sent.count === 0 || typeof err !== 'object' || err === null) return;
  const failedWrite = textOf((err as { query?: unknown }).query);
  if (sent.count === 1 && neverExecuted(err) && failedWrite === sent.last) return;
  unknownOutcomes.add(err);
}

/** Whether judgeOutcome found that this error leaves the request's outcome unknown. */
export function outcomeUnknown(err: unknown): boolean {
  return typeof err === 'object' && err !== null && unknownOutcomes.has(err);
}
