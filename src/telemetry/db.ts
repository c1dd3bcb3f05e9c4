// Every database statement, timed and (when tracing) spanned, through pg-promise's own events: `query`
// fires as a statement is sent, in its caller's context, and `receive` or `error` when it is answered.
// A client runs its statements in order, so each client's statements wait in a queue in that order.
// The statement text is never recorded: its values may be a customer's phone number or email.
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME, ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { statementText as textOf } from '../db/statement-text';
import type { Figures } from './figures';

/** The database context every pool is opened with; the service sets `figures` once its telemetry runs. */
export interface DbObserved {
  figures: Figures | null;
}

interface Sent {
  text: string;
  operation: string;
  started: number;
  span: Span | null;
}

interface EventContext {
  client?: object;
  query?: unknown;
  dc?: unknown;
}

const queues = new WeakMap<object, Sent[]>();

/** SELECT, INSERT, UPDATE, DELETE, WITH, BEGIN...: the statement's first keyword, a handful of values. */
export function operationOf(text: string): string {
  const word = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(text)?.[1];
  return word ? word.toUpperCase() : 'OTHER';
}

function figuresOf(e: EventContext): Figures | null {
  return (e.dc as DbObserved | undefined)?.figures ?? null;
}

function finish(e: EventContext, errorType: string | null): void {
  const f = figuresOf(e);
  if (!f || !e.client) return;
  const queue = queues.get(e.client);
  // an error raised after the answer (a result of the wrong size) names a statement already finished
  const at = queue?.findIndex((q) => q.text === textOf(e.query)) ?? -1;
  if (at < 0) return;
  // statements ahead of it that were never answered (their connection broke) end here, not in memory forever
  for (const lost of queue!.splice(0, at)) lost.span?.setStatus({ code: 2 }).end();
  const head = queue!.shift()!;
  f.dbOperation(head.operation, (performance.now() - head.started) / 1000, errorType);
  if (head.span) {
    if (errorType) head.span.setAttribute(ATTR_ERROR_TYPE, errorType).setStatus({ code: 2 });
    head.span.end();
  }
}

export const dbEvents = {
  query(e: EventContext): void {
    const f = figuresOf(e);
    if (!f || !e.client) return;
    const text = textOf(e.query);
    const operation = operationOf(text);
    const span = f.tracing && trace.getSpan(context.active())
      ? f.tracer.startSpan(operation, { kind: SpanKind.CLIENT, attributes: { [ATTR_DB_SYSTEM_NAME]: 'postgresql', [ATTR_DB_OPERATION_NAME]: operation } })
      : null;
    const queue = queues.get(e.client) ?? [];
    queue.push({ text, operation, started: performance.now(), span });
    queues.set(e.client, queue);
  },
  receive(e: { ctx: EventContext }): void {
    finish(e.ctx, null);
  },
  error(err: unknown, e: EventContext): void {
    const code = (err as { code?: unknown }).code;
    finish(e, typeof code === 'string' ? code : 'error');
  },
};
