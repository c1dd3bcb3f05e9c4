// Proves the Prometheus endpoint (METRICS_PORT) reports, after a payment completes through a processor, its webhook is delivered
// and a processor call fails, each figure under its standard or documented name with the right labels and values, and never a
// merchant reference, phone number, business name or gateway reference as a label.
import { prometheusNames } from '../../src/telemetry/figures';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 50 });
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, METRICS_PORT: '0', ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

/** Prometheus text format: `name{labels} value` lines (comments skipped), labels as an object. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(l);
      if (!match) throw new Error(`not a sample line: ${l}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(svc.metricsUrl!);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, samples: parse(text) };
}

/** The one sample of `name` whose labels include `labels`. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

function pay(phone: string, reference: string) {
  return m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX',
    amount: 50000,
    payment_method: 'MOBILE_MONEY',
    account_number: phone,
    merchant_reference: reference,
    narration: 'Order for live goods',
  });
}

it('reports collections, processor calls, webhook deliveries, backlogs, HTTP and database figures with low-cardinality labels', async () => {
  const mid = String(m.midId);
  const paid = expectOk(await pay('256772000001', `MET-OK-${Date.now()}`));
  await eventually(async () => expectOk(await m.client.get(`/v1/collections/${paid.gateway_reference}`)).transaction_status === 'COMPLETED', 20_000, 'the payment to complete');
  await eventually(() => hooks.received.length === 1, 20_000, 'its webhook');

  // the processor answers 503 to the next send: a failed call, retried later
  fake.mode = 'error';
  const failing = expectOk(await pay('256772000002', `MET-ERR-${Date.now()}`));
  await eventually(
    async () => (await svc.database.db.oneOrNone('SELECT 1 FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1 AND p.last_error IS NOT NULL', [failing.gateway_reference])) !== null,
    20_000,
    'the failed send to be recorded',
  );
  // a market rate, so that its age and staleness are reported (test/rates/rate-metrics.test.ts proves their values)
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'KES', rate: 150 }));
  const { text, samples } = await scrape();
  fake.mode = 'up';

  const collection = { payment_method: 'MOBILE_MONEY', processor: 'mtn_momo', mid };
  expect(value(samples, 'paycollect_collections_started_total', collection)).toBe(2);
  expect(value(samples, 'paycollect_collections_finished_total', { ...collection, status: 'COMPLETED' })).toBe(1);
  expect(value(samples, 'paycollect_processor_call_duration_count', { processor: 'mtn_momo', mid, operation: 'send', outcome: 'accepted' })).toBe(1);
  expect(value(samples, 'paycollect_processor_call_errors_total', { processor: 'mtn_momo', mid, operation: 'send', outcome: 'retry' })).toBeGreaterThanOrEqual(1);
  expect(value(samples, 'paycollect_processor_call_errors_total', { operation: 'send', outcome: 'accepted' })).toBeUndefined();
  expect(value(samples, 'paycollect_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
  expect(value(samples, 'paycollect_webhook_outbox_depth')).toBe(0);
  expect(value(samples, 'paycollect_webhook_outbox_age')).toBe(0);
  expect(value(samples, 'paycollect_processor_requests_held')).toBe(0);
  expect(value(samples, 'paycollect_email_backlog')).toBeGreaterThanOrEqual(0);
  expect(value(samples, 'paycollect_reconciliation_backlog')).toBeGreaterThanOrEqual(0);
  expect(value(samples, 'paycollect_worker_lag', { worker: 'webhooks' })).toBeGreaterThanOrEqual(0);
  expect(value(samples, 'paycollect_fx_rate_age', { base: 'EUR', quote: 'KES', source: 'operator' })).toBeLessThan(60);
  expect(value(samples, 'paycollect_fx_rate_stale', { base: 'EUR', quote: 'KES', source: 'operator' })).toBe(0);
  expect(value(samples, 'paycollect_fx_rate_jumps_held')).toBe(0);

  // the semantic conventions' names; the route is the operation's template
  const route = { http_request_method: 'POST', http_route: '/v1/collections/request-to-pay', http_response_status_code: '200' };
  expect(value(samples, 'http_server_request_duration_count', route)).toBe(2);
  const lookup = { http_request_method: 'GET', http_route: '/v1/collections/{gateway_reference}', http_response_status_code: '200' };
  expect(value(samples, 'http_server_request_duration_count', lookup)).toBeGreaterThanOrEqual(1);
  expect(value(samples, 'db_client_operation_duration_count', { db_system_name: 'postgresql', db_operation_name: 'SELECT' })).toBeGreaterThan(0);
  expect(value(samples, 'db_client_connection_count', { db_client_connection_state: 'idle' })).toBeGreaterThanOrEqual(0);
  expect(value(samples, 'paycollect_database_up')).toBe(1);

  // every name the alert rules and the dashboard may use (deploy/) is in the scrape
  const names = new Set(samples.map((s) => s.name));
  const { histograms, counters, gauges } = prometheusNames();
  for (const h of histograms) for (const suffix of ['_count', '_sum', '_bucket']) expect([h + suffix, names.has(h + suffix)]).toEqual([h + suffix, true]);
  for (const n of [...counters, ...gauges]) expect([n, names.has(n)]).toEqual([n, true]);

  // low cardinality: no reference, phone, business name or gateway reference anywhere in the labels
  for (const secret of [paid.gateway_reference, paid.merchant_reference, '256772000001', 'Live Shop', failing.gateway_reference]) {
    expect(text).not.toContain(secret);
  }
});
