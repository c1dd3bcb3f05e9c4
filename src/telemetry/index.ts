// Metrics and traces through OpenTelemetry's SDK, one set of providers per service.
//
// Metrics: when METRICS_PORT is set, a Prometheus endpoint (`/metrics`) on its own port and address
// (METRICS_HOST, loopback by default), apart from the API so that it never reaches the internet through
// the API's proxy. Names follow the stable semantic conventions (http.server.request.duration with the
// operation's path template as http.route, db.client.operation.duration, the pool's connection counts)
// plus our own figures (figures.ts). Off: a no-op meter, so the hot path records nothing.
//
// Traces: exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set; off by
// default. A span per request (its parent taken from a `traceparent` header), per database statement,
// per send or status query to a processor and per webhook delivery; the worker's spans continue the trace
// of the request that queued the work (kept with the processor request and the notification). Log lines
// carry trace_id and span_id.
//
// Instrumented by hand rather than through require hooks: requests are routed by openapi-backend, whose
// operation path (not express's) is the route; pg-promise's own events see every statement; and it works
// the same compiled, under tsx and in tests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, createNoopMeter, propagation, trace } from '@opentelemetry/api';
import type { Meter, Span, Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

export interface TelemetrySettings {
  /** Prometheus endpoint port (0 = any free port); null = metrics off */
  metricsPort: number | null;
  metricsHost: string;
  /** export spans over OTLP/HTTP (the exporter reads OTEL_EXPORTER_OTLP_* itself) */
  otlpTraces: boolean;
}

export interface Telemetry {
  meter: Meter;
  tracer: Tracer;
  /** whether spans are recorded (an exporter is configured) */
  tracing: boolean;
  /** whether metrics are recorded (METRICS_PORT is set) */
  metrics: boolean;
  /** the Prometheus endpoint, when metrics are on */
  metricsUrl: string | null;
  shutdown(): Promise<void>;
}

const VERSION = '0.1.0';
let contextManagerSet = false;

/** Spans need the active context to follow async calls; set once per process, only where tracing is on. */
function enableContext(): void {
  if (contextManagerSet) return;
  contextManagerSet = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

async function serveMetrics(exporter: PrometheusExporter, port: number, host: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') return exporter.getMetricsRequestHandler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function startTelemetry(s: TelemetrySettings, extraSpanExporter?: SpanExporter): Promise<Telemetry> {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'paycollect', [ATTR_SERVICE_VERSION]: VERSION });
  let meterProvider: MeterProvider | null = null;
  let metricsServer: { url: string; close(): Promise<void> } | null = null;
  if (s.metricsPort !== null) {
    // the exporters are loaded only where they are configured: most processes (and every test) use neither
    const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
    const exporter = new PrometheusExporter({ preventServerStart: true });
    meterProvider = new MeterProvider({ resource, readers: [exporter] });
    metricsServer = await serveMetrics(exporter, s.metricsPort, s.metricsHost);
  }
  const processors: SpanProcessor[] = [];
  if (s.otlpTraces) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  }
  if (extraSpanExporter) processors.push(new SimpleSpanProcessor(extraSpanExporter));
  const tracerProvider = processors.length > 0 ? new BasicTracerProvider({ resource, spanProcessors: processors }) : null;
  if (tracerProvider) enableContext();
  return {
    meter: meterProvider?.getMeter('paycollect', VERSION) ?? createNoopMeter(),
    tracer: tracerProvider?.getTracer('paycollect', VERSION) ?? trace.getTracer('paycollect-off'),
    tracing: tracerProvider !== null,
    metrics: meterProvider !== null,
    metricsUrl: metricsServer?.url ?? null,
    async shutdown() {
      await metricsServer?.close();
      await meterProvider?.shutdown();
      await tracerProvider?.shutdown();
    },
  };
}

/** No metrics, no traces: what services built without a running service use. */
export function telemetryOff(): Telemetry {
  return { meter: createNoopMeter(), tracer: trace.getTracer('paycollect-off'), tracing: false, metrics: false, metricsUrl: null, shutdown: async () => undefined };
}

/** The traceparent header value of the active span, to continue its trace later (a webhook delivery); null when none. */
export function currentTraceParent(): string | null {
  const span = trace.getSpan(context.active());
  if (!span || !span.isRecording()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a stored or received traceparent names (the active one when none). */
export function contextFrom(traceparent: string | null | undefined) {
  if (!traceparent) return context.active();
  return propagation.extract(context.active(), { traceparent });
}

/** Runs fn inside span (ended when fn settles, marked as an error when it throws). */
export async function inSpan<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), fn);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: 2 });
    throw err;
  } finally {
    span.end();
  }
}
