// One server span and one http.server.request.duration measurement per request. The route is the
// template that matched (the OpenAPI operation's path, such as /v1/collections/{gateway_reference}, or
// express's for the pages and probes), never the raw path, so a metric cannot grow a series per id.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_SCHEME } from '@opentelemetry/semantic-conventions';
import type { Request, Response } from 'express';
import type { Figures } from './figures';

const ROUTE = Symbol('route');
const SPAN = Symbol('span');
type Noted = Response & { [ROUTE]?: string; [SPAN]?: Span };

/** Records which operation's path template answered the request (openapi-backend's dispatch). */
export function noteRoute(res: Response, path: string | undefined): void {
  if (path) (res as Noted)[ROUTE] = path;
}

function routeOf(req: Request, res: Response): string | null {
  const noted = (res as Noted)[ROUTE];
  if (noted) return noted;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  return Array.isArray(path) ? String(path[0]) : null;
}

export interface RequestObservation {
  /** trace_id and span_id for the request's log line (empty when not tracing) */
  logFields(): Record<string, string>;
  /** runs the rest of the request inside its span */
  run(next: () => void): void;
}

const NO_FIELDS: Record<string, string> = Object.freeze({});
/** With telemetry off: no listener, no attributes, nothing to end, no fields to log. */
const UNOBSERVED: RequestObservation = { logFields: () => NO_FIELDS, run: (next) => next() };

/** Starts observing one request; its duration is recorded (and its span ended) when the response finishes. */
export function observeRequest(figures: Figures, req: Request, res: Response): RequestObservation {
  if (!figures.observing) return UNOBSERVED;
  const started = performance.now();
  let span: Span | undefined;
  if (figures.tracing) {
    const parent = propagation.extract(context.active(), req.headers);
    span = figures.tracer.startSpan(
      req.method,
      { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method, [ATTR_URL_SCHEME]: 'http', 'url.path': req.path } },
      parent,
    );
    (res as Noted)[SPAN] = span;
  }
  res.once('finish', () => {
    const route = routeOf(req, res);
    figures.httpRequest(req.method, route, res.statusCode, (performance.now() - started) / 1000);
    if (!span) return;
    if (route) span.updateName(`${req.method} ${route}`).setAttribute(ATTR_HTTP_ROUTE, route);
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  return {
    logFields: (): Record<string, string> => (span ? { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId } : {}),
    run: (next) => (span ? context.with(trace.setSpan(context.active(), span), next) : next()),
  };
}

/**
 * Runs fn in the request's span. The body parser answers from the socket's events, which do not carry
 * the context the request started in, so the dispatch re-enters it.
 */
export function inRequestSpan<T>(res: Response, fn: () => T): T {
  const span = (res as Noted)[SPAN];
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}
