// Proves one request's trace is followed, through an in-memory exporter, from the request (continuing the caller's traceparent)
// through its database statements to the webhook delivery a worker makes later, and on a live processor through the worker's send
// and status query; and that the log lines carry the trace id.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import { FAST_PROCESSORS, liveMerchant } from '../helpers/live';
import type { MerchantSetup } from '../helpers/fixtures';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const exporter = new InMemorySpanExporter();
let hooks: Receiver;
let svc: TestService;
let m: MerchantSetup;
/** a customer who never answers: the collection stays PENDING until the simulation moves it */
const SILENT = '256700000123';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

beforeAll(async () => {
  hooks = await startReceiver();
  svc = await startTestService({ spanExporter: exporter });
  m = await setupMerchant(svc, { webhookUrl: hooks.url });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
});

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Whether `span` descends from `ancestor` among `spans`. */
function descends(span: ReadableSpan, ancestor: ReadableSpan, spans: ReadableSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (let p = parentOf(span); p; p = byId.get(p) && parentOf(byId.get(p)!)) {
    if (p === ancestor.spanContext().spanId) return true;
  }
  return false;
}

it('follows the simulate request through its statements to the webhook delivery', async () => {
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: SILENT }));
  expect(created.status).toBe(200);
  const ref = created.body.data.gateway_reference as string;
  exporter.reset();

  const moved = await m.client.post(`/v1/sandbox/collections/${ref}/simulate`, { outcome: 'COMPLETED' }, { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
  expect(moved.status).toBe(200);
  await eventually(() => hooks.received.length === 1, 20_000, 'the webhook');
  const delivery = await eventually(() => exporter.getFinishedSpans().find((s) => s.name === 'webhook deliver'), 10_000, 'the delivery span');

  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
  const request = spans.find((s) => s.name === 'POST /v1/sandbox/collections/{gateway_reference}/simulate');
  expect(request).toBeDefined();
  // the caller's span is the request's parent: the trace continues across services
  expect(parentOf(request!)).toBe(CALLER_SPAN);
  expect(request!.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/v1/sandbox/collections/{gateway_reference}/simulate',
    'http.response.status_code': 200,
  });
  // the state change's statements are children of the request, named by their operation, without their text
  const statements = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
  expect(statements.length).toBeGreaterThan(0);
  for (const s of statements) {
    expect(descends(s, request!, spans)).toBe(true);
    expect(s.attributes['db.query.text']).toBeUndefined();
  }
  expect(statements.map((s) => s.name)).toContain('WITH');
  // the worker's delivery continues the request's trace, from the traceparent stored with the notification
  expect(delivery.spanContext().traceId).toBe(TRACE_ID);
  expect(descends(delivery, request!, spans)).toBe(true);
  expect(delivery.attributes['http.response.status_code']).toBe(200);
  expect(delivery.attributes['paycollect.webhook.event_id']).toBe(hooks.received[0].headers['webhook-id']);
  // the workers' later rounds are not part of it: a kick from the request does not carry its trace into the worker loop
  const after = spans.filter((s) => s.startTime[0] * 1e9 + s.startTime[1] > delivery.endTime[0] * 1e9 + delivery.endTime[1]);
  expect(after.filter((s) => !descends(s, delivery, spans))).toEqual([]);

  // log lines name the trace: the request's own line and the worker's delivery line
  const lines = svc.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.find((l) => l.msg === 'request' && String(l.path).endsWith('/simulate'))?.trace_id).toBe(TRACE_ID);
  expect(lines.find((l) => l.msg === 'webhook delivered')?.trace_id).toBe(TRACE_ID);
});

it('records nothing and adds no trace id to logs when no exporter is configured', async () => {
  const quiet = await startTestService();
  try {
    const res = await fetch(quiet.url + '/livez', { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
    expect(res.status).toBe(200);
    const line = quiet.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request');
    expect(line).toBeDefined();
    expect(line!.trace_id).toBeUndefined();
  } finally {
    await quiet.close();
  }
});

it('follows a live request-to-pay through the worker send and status query to the processor', async () => {
  const fake = new FakeMtnMomo({ answerAfterMs: 50 });
  await fake.start();
  const receiver = await startReceiver();
  const live = await startTestService({ spanExporter: exporter, env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  try {
    const lm = await liveMerchant(live, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: receiver.url });
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const body = { currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256772000009', merchant_reference: `TRACE-${Date.now()}`, narration: 'Order for live goods' };
    const res = await lm.client.post('/v1/collections/request-to-pay', body, { headers: { traceparent: `00-${traceId}-${CALLER_SPAN}-01` } });
    expect(res.status).toBe(200);
    await eventually(() => receiver.received.length === 1, 20_000, 'the completion webhook');
    const inTrace = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    await eventually(() => inTrace().some((s) => s.name === 'webhook deliver'), 10_000, 'the delivery span');
    const spans = inTrace();
    const request = spans.find((s) => s.name === 'POST /v1/collections/request-to-pay')!;
    expect(request).toBeDefined();
    const send = spans.find((s) => s.name === 'processor send')!;
    const status = spans.find((s) => s.name === 'processor status')!;
    expect(send.attributes).toMatchObject({ 'paycollect.processor': 'mtn_momo', 'paycollect.mid': String(lm.midId), 'paycollect.processor.outcome': 'accepted' });
    expect(status.attributes['paycollect.processor.outcome']).toBe('observed');
    for (const s of [send, status]) expect(descends(s, request, spans)).toBe(true);
    // the completion the status query found wrote the webhook, whose delivery continues the same trace
    expect(spans.filter((s) => s.name === 'webhook deliver').every((s) => descends(s, request, spans))).toBe(true);
  } finally {
    await live.close();
    await receiver.close();
    await fake.stop();
  }
}, 60_000);
