// The figures an operator watches, recorded where the events happen. Labels are low-cardinality only:
// payment method, processor (service type), MID id, state, outcome, operation, worker name. Never a
// merchant reference, a phone number, a business name or a gateway reference.
import { SpanKind } from '@opentelemetry/api';
import type { Attributes, Counter, Histogram, Meter, ObservableGauge, Span, Tracer } from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_SCHEME,
  METRIC_DB_CLIENT_OPERATION_DURATION,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
} from '@opentelemetry/semantic-conventions';
import type { RateMaxAges } from '../config';
import { pingDatabase } from '../db';
import type { RateSource } from '../domain/fx';
import { ageSeconds, isCurrent } from '../domain/rate-age';
import type { Db } from '../db';
import { contextFrom } from './index';
import type { Telemetry } from './index';

/** The semantic conventions' advice for request durations, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** The backlog gauges give up on a database that does not answer within this. */
const BACKLOG_TIMEOUT_MS = 2000;

/** Our own metric names (Prometheus shows them with dots as underscores, counters with _total). */
export const METRIC = {
  collectionsStarted: 'paycollect.collections.started',
  collectionsFinished: 'paycollect.collections.finished',
  processorCallDuration: 'paycollect.processor.call.duration',
  processorCallErrors: 'paycollect.processor.call.errors',
  processorUnknown: 'paycollect.processor.requests.unknown',
  processorHeld: 'paycollect.processor.requests.held',
  reconciliationBacklog: 'paycollect.reconciliation.backlog',
  providerReportsDue: 'paycollect.provider_reports.due',
  webhookDeliveries: 'paycollect.webhook.deliveries',
  webhookOutboxDepth: 'paycollect.webhook.outbox.depth',
  webhookOutboxAge: 'paycollect.webhook.outbox.age',
  emailBacklog: 'paycollect.email.backlog',
  workerLag: 'paycollect.worker.lag',
  dbConnections: 'db.client.connection.count',
  dbPending: 'db.client.connection.pending_requests',
  databaseUp: 'paycollect.database.up',
  fxRateAge: 'paycollect.fx_rate.age',
  fxRateStale: 'paycollect.fx_rate.stale',
  fxRateJumpsHeld: 'paycollect.fx_rate.jumps_held',
  reconciliationUnmatched: 'paycollect.reconciliation.unmatched',
  reconciliationUndecidedAge: 'paycollect.reconciliation.undecided_age',
} as const;

/**
 * What a Prometheus scrape shows: dots become underscores, counters end in _total, histograms appear as
 * _count, _sum and _bucket series. The alert rules and the dashboard under deploy/ use these names only
 * (a test checks), and the metrics test finds each of them in a scrape.
 */
export function prometheusNames(): { histograms: string[]; counters: string[]; gauges: string[] } {
  const p = (n: string) => n.replace(/\./g, '_');
  return {
    histograms: [METRIC_HTTP_SERVER_REQUEST_DURATION, METRIC_DB_CLIENT_OPERATION_DURATION, METRIC.processorCallDuration].map(p),
    counters: [METRIC.collectionsStarted, METRIC.collectionsFinished, METRIC.processorCallErrors, METRIC.webhookDeliveries].map((n) => p(n) + '_total'),
    gauges: [
      METRIC.processorUnknown, METRIC.processorHeld, METRIC.reconciliationBacklog, METRIC.providerReportsDue, METRIC.webhookOutboxDepth,
      METRIC.webhookOutboxAge, METRIC.emailBacklog, METRIC.workerLag, METRIC.dbConnections, METRIC.dbPending, METRIC.databaseUp,
      METRIC.fxRateAge, METRIC.fxRateStale, METRIC.fxRateJumpsHeld, METRIC.reconciliationUnmatched, METRIC.reconciliationUndecidedAge,
    ].map(p),
  };
}

export type ProcessorOperation = 'send' | 'status';
/** What a processor call is about (processors/requests.ts RequestKind): a collection's charge, a refund, a payout. */
export type ProcessorRequestKind = 'collection' | 'refund' | 'payout';
export type WebhookOutcome = 'delivered' | 'failed' | 'gave_up';

interface Backlog {
  webhook_depth: number;
  webhook_age_seconds: number;
  email_backlog: number;
  unknown: number;
  held: number;
  reconciliation: number;
  reports_due: number;
  rate_jumps_held: number;
  /** every market rate's pair, source and as_of (a few dozen rows) */
  rates: { base: string; quote: string; source: RateSource; as_of: string }[];
  /** per MID and state, the reconciliation items not resolved, and the age of the oldest undecided one (null when none) */
  unmatched: { mid: number; state: string; items: number; age: number | null }[];
}

/**
 * Reconciliation items not resolved (docs/reconciliation.md), per MID and state (every state but matched),
 * with the age of the oldest no operator has decided: every state of each MID whose processor's statements are
 * read (M-Pesa, MTN MoMo, Paystack, BTCPay) or with items, 0 when none, so an alert sees a MID's series before its first difference.
 */
const UNMATCHED_SQL = `SELECT m.id AS mid, s.state, count(i.id)::int AS items,
    EXTRACT(EPOCH FROM $1::timestamptz - min(i.created_at) FILTER (WHERE i.resolution IS NULL))::float8 AS age
  FROM mids m
  CROSS JOIN unnest(ARRAY['amount_over', 'amount_under', 'currency_mismatch', 'ours_missing', 'theirs_missing', 'reversed_externally']) AS s(state)
  LEFT JOIN reconciliation_items i ON i.mid_id = m.id AND i.state = s.state AND i.resolution IS DISTINCT FROM 'resolved'
  WHERE m.service_type IN ('mpesa', 'mtn_momo', 'paystack', 'btcpay') OR EXISTS (SELECT 1 FROM reconciliation_items x WHERE x.mid_id = m.id)
  GROUP BY m.id, s.state ORDER BY m.id, s.state`;

const BACKLOG_SQL = `SELECT
  (SELECT count(*)::int FROM notifications WHERE delivered_at IS NULL AND gave_up_at IS NULL) AS webhook_depth,
  (SELECT COALESCE(EXTRACT(EPOCH FROM $1::timestamptz - min(created_at)), 0)::float8 FROM notifications
     WHERE delivered_at IS NULL AND gave_up_at IS NULL) AS webhook_age_seconds,
  (SELECT count(*)::int FROM emails WHERE sent_at IS NULL AND gave_up_at IS NULL) AS email_backlog,
  (SELECT count(*)::int FROM processor_requests WHERE state = 'unknown') AS unknown,
  (SELECT count(*)::int FROM processor_requests WHERE state = 'held') AS held,
  (SELECT count(*)::int FROM processor_requests WHERE next_check_at <= $1 OR next_send_at <= $1) AS reconciliation,
  (SELECT count(*)::int FROM provider_events WHERE processed_at IS NULL AND due_at <= $1) AS reports_due,
  (SELECT count(*)::int FROM fx_rate_jumps WHERE decision IS NULL) AS rate_jumps_held,
  (SELECT coalesce(json_agg(json_build_object('base', base, 'quote', quote, 'source', source, 'as_of', as_of)), '[]'::json) FROM fx_rates) AS rates,
  (SELECT coalesce(json_agg(u), '[]'::json) FROM (${UNMATCHED_SQL}) u) AS unmatched`;

export class Figures {
  private readonly httpDuration: Histogram;
  private readonly dbDuration: Histogram;
  private readonly started: Counter;
  private readonly finished: Counter;
  private readonly processorDuration: Histogram;
  private readonly processorErrors: Counter;
  private readonly deliveries: Counter;
  /** MID id -> processor (service type): a MID's service type never changes */
  private readonly processorOfMid = new Map<number, string>();
  readonly tracer: Tracer;
  readonly tracing: boolean;
  private readonly metrics: boolean;
  private readonly meter: Meter;

  constructor(t: Telemetry) {
    this.meter = t.meter;
    this.tracer = t.tracer;
    this.tracing = t.tracing;
    this.metrics = t.metrics;
    const m = t.meter;
    this.httpDuration = m.createHistogram(METRIC_HTTP_SERVER_REQUEST_DURATION, {
      unit: 's',
      description: 'Duration of HTTP server requests',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.dbDuration = m.createHistogram(METRIC_DB_CLIENT_OPERATION_DURATION, {
      unit: 's',
      description: 'Duration of database client operations',
      advice: { explicitBucketBoundaries: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10] },
    });
    this.started = m.createCounter(METRIC.collectionsStarted, { description: 'Collections accepted (PENDING), by method, processor and MID' });
    this.finished = m.createCounter(METRIC.collectionsFinished, { description: 'Collections that reached a final state, by method, processor, MID and state' });
    this.processorDuration = m.createHistogram(METRIC.processorCallDuration, {
      unit: 's',
      description: 'Calls to a processor (send or status query), by processor, MID and outcome',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.processorErrors = m.createCounter(METRIC.processorCallErrors, { description: 'Processor calls without a usable answer (unknown, unavailable, to retry, failed), by MID' });
    this.deliveries = m.createCounter(METRIC.webhookDeliveries, { description: 'Webhook delivery attempts by outcome (delivered, failed and to be retried, gave up)' });
  }

  /** Whether anything is measured or traced at all: off, the hot paths skip the work of observing. */
  get observing(): boolean {
    return this.metrics || this.tracing;
  }

  // ---- HTTP and database (semantic conventions) ------------------------------------------------

  httpRequest(method: string, route: string | null, status: number, seconds: number): void {
    const a: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status, [ATTR_URL_SCHEME]: 'http' };
    if (route) a[ATTR_HTTP_ROUTE] = route;
    if (status >= 500) a[ATTR_ERROR_TYPE] = String(status);
    this.httpDuration.record(seconds, a);
  }

  dbOperation(operation: string, seconds: number, errorType: string | null): void {
    const a: Attributes = { [ATTR_DB_SYSTEM_NAME]: 'postgresql', [ATTR_DB_OPERATION_NAME]: operation };
    if (errorType) a[ATTR_ERROR_TYPE] = errorType;
    this.dbDuration.record(seconds, a);
  }

  /** The pool's connections by state, the requests waiting for one, and whether the database answers, read when scraped. */
  observePool(db: Db, poolName: string): void {
    const pool = db.$pool as unknown as { totalCount: number; idleCount: number; waitingCount: number };
    const count = this.meter.createObservableUpDownCounter(METRIC.dbConnections, { unit: '{connection}', description: 'Database connections by state' });
    const pending = this.meter.createObservableUpDownCounter(METRIC.dbPending, { unit: '{request}', description: 'Requests waiting for a database connection' });
    const up = this.meter.createObservableGauge(METRIC.databaseUp, { description: 'Whether the database answered a trivial query within 2 s (1) or not (0)' });
    this.meter.addBatchObservableCallback(
      async (o) => {
        const name = { 'db.client.connection.pool.name': poolName };
        o.observe(count, pool.idleCount, { ...name, 'db.client.connection.state': 'idle' });
        o.observe(count, pool.totalCount - pool.idleCount, { ...name, 'db.client.connection.state': 'used' });
        o.observe(pending, pool.waitingCount, name);
        o.observe(up, (await pingDatabase(db, BACKLOG_TIMEOUT_MS)) ? 1 : 0);
      },
      [count, pending, up],
    );
  }

  // ---- collections and processors ---------------------------------------------------------

  private collectionLabels(c: { payment_method: string; mid_id: number | null }, processor?: string): Attributes {
    const mid = c.mid_id === null ? 'none' : String(c.mid_id);
    if (processor && c.mid_id !== null) this.processorOfMid.set(c.mid_id, processor);
    const known = processor ?? (c.mid_id === null ? undefined : this.processorOfMid.get(c.mid_id));
    return { payment_method: c.payment_method, processor: known ?? 'unknown', mid };
  }

  collectionStarted(c: { payment_method: string; mid_id: number | null }, processor: string): void {
    if (!this.metrics) return;
    this.started.add(1, this.collectionLabels(c, processor));
  }

  /** A collection moved to a final state (once, after its change committed). */
  collectionFinished(c: { payment_method: string; mid_id: number | null; status: string }, db: Db): void {
    if (!this.metrics) return;
    const record = () => this.finished.add(1, { ...this.collectionLabels(c), status: c.status });
    if (c.mid_id === null || this.processorOfMid.has(c.mid_id)) return record();
    const midId = c.mid_id;
    db.oneOrNone<{ service_type: string }>('SELECT service_type FROM mids WHERE id = $1', [midId]).then(
      (m) => {
        if (m) this.processorOfMid.set(midId, m.service_type);
        record();
      },
      () => record(),
    );
  }

  /**
   * A client span for one call to a processor (the worker's send or status query of a collection's charge,
   * a refund or a payout), continuing the trace of the request that queued it.
   */
  processorSpan(processor: string, midId: number, kind: ProcessorRequestKind, operation: ProcessorOperation, traceParent: string | null): Span {
    const attributes = { 'paycollect.processor': processor, 'paycollect.mid': String(midId), 'paycollect.processor.kind': kind };
    return this.tracer.startSpan(`processor ${operation}`, { kind: SpanKind.CLIENT, attributes }, contextFrom(traceParent));
  }

  processorCall(processor: string, midId: number, kind: ProcessorRequestKind, operation: ProcessorOperation, outcome: string, seconds: number, error: boolean): void {
    const a = { processor, mid: String(midId), kind, operation, outcome };
    this.processorDuration.record(seconds, a);
    if (error) this.processorErrors.add(1, a);
  }

  // ---- webhooks ---------------------------------------------------------------------------

  /** A client span for one delivery attempt, continuing the trace that wrote the notification. */
  webhookSpan(traceParent: string | null): Span {
    return this.tracer.startSpan('webhook deliver', { kind: SpanKind.CLIENT }, contextFrom(traceParent));
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.deliveries.add(1, { outcome });
  }

  // ---- backlogs, read from the database when scraped (processes that run the workers) ----------

  /** The backlogs, the workers' lag, and each market rate's age and staleness (by `maxAges`, src/domain/rate-age.ts) with the jumps held. */
  observeBacklogs(db: Db, now: () => Date, lagSeconds: () => ReadonlyMap<string, number> | undefined, maxAges: RateMaxAges): void {
    const gauge = (name: string, description: string, unit?: string): ObservableGauge => this.meter.createObservableGauge(name, { description, unit });
    const g = {
      depth: gauge(METRIC.webhookOutboxDepth, 'Webhook notifications neither delivered nor given up', '{notification}'),
      age: gauge(METRIC.webhookOutboxAge, 'Age of the oldest webhook notification not yet delivered', 's'),
      email: gauge(METRIC.emailBacklog, 'Emails neither sent nor given up', '{email}'),
      unknown: gauge(METRIC.processorUnknown, 'Processor requests whose outcome is unknown (awaiting a status query)', '{request}'),
      held: gauge(METRIC.processorHeld, 'Payments held for the operator', '{request}'),
      reconciliation: gauge(METRIC.reconciliationBacklog, 'Processor sends and status queries due and not yet done', '{request}'),
      reports: gauge(METRIC.providerReportsDue, 'Provider reports due and not yet applied', '{report}'),
      lag: gauge(METRIC.workerLag, 'How far each background worker is behind its schedule (time since its last run ended, less its interval)', 's'),
      rateAge: gauge(METRIC.fxRateAge, "Age of each pair's market rate (time since its as_of), by base, quote and source", 's'),
      rateStale: gauge(METRIC.fxRateStale, "Whether each pair's market rate is past its source's maximum age (1) or current (0)"),
      jumpsHeld: gauge(METRIC.fxRateJumpsHeld, 'Market rate jumps held for the operator', '{jump}'),
      unmatched: gauge(METRIC.reconciliationUnmatched, "Reconciliation items not resolved, by MID and state (the processor's statement against our records)", '{item}'),
      undecided: gauge(METRIC.reconciliationUndecidedAge, "Age of each MID's oldest reconciliation item no operator has decided (0 when none)", 's'),
    };
    this.meter.addBatchObservableCallback(async (o) => {
      const at = now();
      for (const [worker, lag] of lagSeconds() ?? []) o.observe(g.lag, lag, { worker });
      let timer: NodeJS.Timeout | undefined;
      const b = await Promise.race([
        db.one<Backlog>(BACKLOG_SQL, [at]).catch(() => null),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), BACKLOG_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      if (!b) return;
      o.observe(g.depth, b.webhook_depth);
      o.observe(g.age, b.webhook_age_seconds);
      o.observe(g.email, b.email_backlog);
      o.observe(g.unknown, b.unknown);
      o.observe(g.held, b.held);
      o.observe(g.reconciliation, b.reconciliation);
      o.observe(g.reports, b.reports_due);
      o.observe(g.jumpsHeld, b.rate_jumps_held);
      const oldest = new Map<number, number>();
      for (const u of b.unmatched) {
        o.observe(g.unmatched, u.items, { mid: String(u.mid), state: u.state });
        oldest.set(u.mid, Math.max(oldest.get(u.mid) ?? 0, u.age ?? 0));
      }
      for (const [mid, age] of oldest) o.observe(g.undecided, age, { mid: String(mid) });
      for (const r of b.rates) {
        const asOf = new Date(r.as_of);
        const labels = { base: r.base, quote: r.quote, source: r.source };
        o.observe(g.rateAge, ageSeconds(asOf, at), labels);
        o.observe(g.rateStale, isCurrent(r.source, asOf, at, maxAges) ? 0 : 1, labels);
      }
    }, Object.values(g));
  }
}
