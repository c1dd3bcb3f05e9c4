// `npm run bench`: request-to-pay on this service, on the Prism mock of its spec and on a bare node:http
// floor, with the same load, and (real PostgreSQL) on 2 ROLE=api processes and a ROLE=worker behind a
// round-robin; completions per second on one hot wallet; webhook latency at a steady rate; the service's
// peak RSS; refunds per second on one hot wallet through the API; request-to-pay again with metrics on (METRICS_PORT), for the cost of telemetry; start-up time and
// memory of the compiled server against the same sources run through tsx. Figures go to a short table and to the JSON file BENCH_OUT (default
// ./bench-out.json). Real PostgreSQL when DATABASE_URL is set (a fresh database is made on that server and
// dropped after), else embedded PostgreSQL in a temporary directory. It reports; it never fails on speed.
//
//   npm run bench                      all figures
//   npm run bench -- --profile         request-to-pay only, under node --cpu-prof: where the time goes
//   npm run bench -- --scale           balance reads, list pages and completions at 0, 1 and 10 million rows
//   npm run bench -- --soak            a steady mixed load for 10 minutes: RSS, latency and errors per minute
//   npm run bench -- --export          a 1-million-row collections export: rows/s and the service's peak memory (DATABASE_URL)
//   npm run bench -- --reconciliation  a 100,000-row M-Pesa statement taken in and matched, then again: seconds, and memory at each tenth
//   npm run bench -- --refunds         the refund case only: refunds per second on one hot wallet, balance exact
//   npm run bench -- --disbursements   the disbursement case (not in the default run): disbursements per second on one hot wallet to COMPLETED, balance exact
//   npm run bench -- --webhooks        the webhook case only: latency from state change to receiver at BENCH_WEBHOOK_RATE, delivered by a
//                                      ROLE=worker process (real server only; the target) and by the changing process itself
//   npm run bench -- --hot-wallet      the hot-wallet case only: BENCH_COMPLETIONS completions on one wallet, 50 at once, balance exact
//   npm run bench -- --sweep           request-to-pay only: 50 connections, the fixed rate, then the fixed-rate sweep
//   npm run bench -- --allocations     request-to-pay only: 50 connections, then the fixed rate with the heap sampled: bytes
//                                      allocated per request, collections per thousand requests, the allocation sites
//   npm run bench -- --allocations --survivors   the same, the sites of what outlived a young collection (promoted) instead
//   npm run bench -- --no-sweep        all figures but the fixed-rate sweep
// Every target (scripts/bench/targets.ts) is printed with its figure and met or MISSED.
// Settings: BENCH_CONNECTIONS (50), BENCH_DURATION seconds (10), BENCH_WARMUP seconds (2), BENCH_FIXED_RATE
// req/s (1000: request-to-pay again at that fixed offered load, for its p99),
// BENCH_COMPLETIONS (8000), BENCH_REFUNDS (1000), BENCH_REFUND_CONCURRENCY (20), BENCH_DISBURSEMENTS (500), BENCH_DISBURSEMENT_CONCURRENCY (50), BENCH_WEBHOOK_RATE events/s (500, the target's rate), BENCH_WEBHOOK_EVENTS (1000),
// BENCH_REPORT_RATE provider reports/s (the request-to-pay rate just measured), BENCH_REPORTS (2000);
// the fixed-rate sweep (scripts/bench/sweep.ts): BENCH_SWEEP_FROM req/s (500), BENCH_SWEEP_STEP (250), BENCH_SWEEP_MAX (5000),
// BENCH_SWEEP_SECONDS a step (3): the open-loop sender at each rate until p99 reaches 25 ms or a request fails;
// --scale: BENCH_SCALE_LEVELS (0,1000000,10000000), BENCH_SCALE_MAX_COLLECTIONS (1000000), BENCH_SCALE_COMPLETIONS (500),
// BENCH_SCALE_HISTORY_MONTHS (24). BENCH_KEEP=1 keeps the work directory (the children's logs) and prints where it is.
// BENCH_SERVICE_NODE_OPTIONS: node options for the measured service process (e.g. --max-semi-space-size=32), to compare.
// CPU per request counts the service process and the PostgreSQL backends of the bench's own database only.
// --soak: BENCH_SOAK_SECONDS (600), BENCH_SOAK_WINDOW seconds (60), BENCH_SOAK_RATE requests/s (50).
// --export: BENCH_EXPORT_ROWS (1000000), BENCH_EXPORT_SLOW_ROWS (100000).
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { exportSettings, runExport } from './bench/export';
import { runReconciliation } from './bench/reconciliation';
import { hotWallet } from './bench/hot-wallet';
import { hotWalletRefunds } from './bench/refunds';
import type { RefundFigures } from './bench/refunds';
import { hotWalletDisbursements } from './bench/disbursements';
import type { DisbursementFigures } from './bench/disbursements';
import { measureRoundRobin } from './bench/round-robin';
import { runScale, scaleLevels } from './bench/scale';
import { runSoak, soakSettings } from './bench/soak';
import { openLoopPost } from './bench/open-loop';
import { sweep } from './bench/sweep';
import type { SweepFigures } from './bench/sweep';
import { freshServerDatabase, machine, rtpBody, setupMerchant } from './bench/setup';
import type { HotWalletFigures } from './bench/hot-wallet';
import { execFileSync } from 'node:child_process';
import { isBuildCurrent } from './build-stamp.cjs';
import { freePort, highWaterMb, loadPost, ROOT, rssMb, setting, startChild, stopChild, waitForFile, waitForHttp } from './bench/lib';
import type { Child, HttpFigures, LoadSettings } from './bench/lib';
import { summarizeProfile } from './bench/profile';
import { memoryParts, summarizeAllocations } from './bench/allocations';
import type { HeapSample, MemoryParts, MemoryPeak } from './bench/allocations';
import { judge, peakRss, ratio, TARGETS, targetTable } from './bench/targets';
import type { Judged } from './bench/targets';
import type { ProfileSummary } from './bench/profile';
import { providerReportLag } from './bench/provider-reports';
import type { ProviderReportFigures } from './bench/provider-reports';
import { startReceiver, webhookLatency } from './bench/webhooks';
import type { WebhookFigures } from './bench/webhooks';

/** `tag` keeps each target's merchant references apart (the floor inserts into the service's table). */
async function measureHttp(name: string, tag: string, child: Child, port: number, settings: LoadSettings, headers: Record<string, string>, databaseUrl: string | null): Promise<HttpFigures> {
  await waitForHttp(`http://127.0.0.1:${port}/`, child);
  const load = settings.ratePerSecond ? `a fixed ${settings.ratePerSecond} req/s, sent open-loop` : `${settings.connections} connections`;
  process.stdout.write(`  ${name}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s at ${load}\n`);
  return loadPost({
    url: `http://127.0.0.1:${port}/v1/collections/request-to-pay`,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    makeBody: (n) => JSON.stringify(rtpBody(`${tag}${n}`)),
    settings,
    pid: child.pid,
    databaseUrl,
  });
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));
const sweepResult = (s: SweepFigures) =>
  `${s.highest_held_per_s === null ? 'none' : `${s.highest_held_per_s} req/s`} (${s.steps.map((t) => `${t.offered_per_s}: p99 ${fmt(t.p99_ms)} ms${t.errors > 0 ? `, ${t.errors} errors` : ''}`).join('; ')}${s.stopped === 'max' ? '; stopped at BENCH_SWEEP_MAX' : ''})`;
/** The first figure is the one held to the target: the deliveries in a worker process where there is a real server */
const webhookRows = (ws: WebhookFigures[]): [string, string][] =>
  ws.map((w) => [
    `webhook latency, ${w.processes === 'one' ? 'deliveries in the changing process' : 'API process + worker process'}`,
    `p50 ${fmt(w.p50_ms)} ms, p99 ${fmt(w.p99_ms)} ms at ${w.rate_per_s}/s (${w.delivered}/${w.events} delivered)`,
  ]);

const disbursementRow = (d: DisbursementFigures): [string, string] => [
  'hot wallet disbursements through the API to COMPLETED',
  `${fmt(d.per_s)}/s (${d.disbursements} by ${d.concurrency}, accepted at ${fmt(d.accepted_per_s)}/s, ${d.errors} errors), balance ${d.exact_balance ? 'exact' : 'WRONG'}`,
];

const hotWalletRows = (hot: HotWalletFigures): [string, string][] => [
  ['hot wallet completions', `${fmt(hot.per_s)}/s (${hot.completions} by ${hot.concurrency}), balance ${hot.exact_balance ? 'exact' : 'WRONG'}`],
  ['CPU ms per completion (process + PostgreSQL backends)', `${fmt(hot.cpu_ms_per_completion.process_ms, 2)}${hot.cpu_ms_per_completion.postgres_ms === null ? '' : ` + ${fmt(hot.cpu_ms_per_completion.postgres_ms, 2)}`}`],
];

const refundRow = (r: RefundFigures): [string, string] => [
  'hot wallet refunds through the API',
  `${fmt(r.per_s)}/s (${r.refunds} by ${r.concurrency}, ${r.errors} errors), balance ${r.exact_balance ? 'exact' : 'WRONG'}`,
];

/** Rows of what and figure, as a Markdown table. */
function figureTable(rows: [string, string][]): string {
  const w = [0, 1].map((i) => Math.max(...rows.map((row) => row[i].length), ['what', 'result'][i].length));
  const line = (c: string[]) => '| ' + c.map((v, i) => v.padEnd(w[i])).join(' | ') + ' |';
  return [line(['what', 'result']), '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|', ...rows.map(line)].join('\n');
}

/** A focused mode's figures, then the targets it measured, then where the JSON went. */
function printFocused(rows: [string, string][], judged: Judged[], out: string): void {
  const targets = targetTable(judged);
  process.stdout.write(`\n${figureTable(rows)}\n${targets ? `\n${targets}\n` : ''}\nFigures written to ${out}\n`);
}
const NONE = { service: null, fixed_rate: null, prism: null, floor: null, hot_wallet: null, refunds: null, webhooks: null, reconciliation: null };

/** The peak resident set split by what holds it (scripts/bench/memory-peak.cjs). */
const memoryRow = (m: MemoryParts): [string, string] => [
  '  peak RSS made of: mapped files / V8 heap (young generation) / external / other native',
  `${fmt(m.file_mb, 1)} / ${fmt(m.heap_mb, 1)} (${fmt(m.young_mb, 1)}) / ${fmt(m.external_mb, 1)} / ${fmt(m.native_mb, 1)} MB of ${fmt(m.rss_mb, 1)} MB`,
];

function table(r: Report): string {
  const http = (f: HttpFigures | null) => (f ? `${fmt(f.req_per_s)} req/s, p50 ${fmt(f.p50_ms)} ms, p99 ${fmt(f.p99_ms)} ms, ${f.errors} errors` : '-');
  const rows: [string, string][] = [
    ['request-to-pay, this service (50 connections)', http(r.service.request_to_pay)],
    ['request-to-pay, metrics on (METRICS_PORT)', http(r.metrics_on)],
    ['start to /healthz and RSS then: build / tsx', r.start_up ? `${r.start_up.compiled_ms} ms, ${fmt(r.start_up.compiled_rss_mb)} MB / ${r.start_up.tsx_ms} ms, ${fmt(r.start_up.tsx_rss_mb)} MB` : '-'],
    ['request-to-pay at a fixed offered load, after it', r.fixed_rate ? `${fmt(r.fixed_rate.req_per_s)} of ${r.fixed_rate.offered_per_s} req/s answered, p50 ${fmt(r.fixed_rate.p50_ms)} ms, p99 ${fmt(r.fixed_rate.p99_ms)} ms, ${r.fixed_rate.errors} errors` : '-'],
    ['highest fixed rate with p99 under 25 ms (sweep)', r.sweep ? sweepResult(r.sweep) : '-'],
    ['request-to-pay, Prism mock', http(r.prism)],
    ['request-to-pay, 2 API processes + worker (round-robin)', http(r.round_robin)],
    ['request-to-pay, node:http floor', http(r.floor)],
    ['CPU ms per request (process + PostgreSQL backends)', [['service', r.service.request_to_pay], ['floor', r.floor], ['Prism', r.prism]]
      .filter((e): e is [string, HttpFigures] => e[1] !== null)
      .map(([n, f]) => `${n} ${fmt(f.cpu_per_request.server_ms, 2)}${f.cpu_per_request.postgres_ms === null ? '' : ` + ${fmt(f.cpu_per_request.postgres_ms, 2)}`}`)
      .join(', ')],
    ['service peak RSS (50 connections / fixed rate / high-water)', `${fmt(r.service.request_to_pay.peak_rss_mb)} / ${fmt(r.fixed_rate?.peak_rss_mb)} / ${fmt(r.service.high_water_rss_mb)} MB`],
    ...(r.peak_rss_parts ? [memoryRow(r.peak_rss_parts)] : []),
    ...(r.hot_wallet ? hotWalletRows(r.hot_wallet) : []),
    ...(r.refunds ? [refundRow(r.refunds)] : []),
    ['provider-report worker lag', r.provider_reports ? `p50 ${fmt(r.provider_reports.lag_p50_ms)} ms, p99 ${fmt(r.provider_reports.lag_p99_ms)} ms, max ${fmt(r.provider_reports.lag_max_ms)} ms at ${r.provider_reports.rate_per_s}/s; a backlog drains at ${fmt(r.provider_reports.backlog_drained_per_s)}/s` : '-'],
    ...(r.webhooks ? webhookRows(r.webhooks) : []),
  ];
  return figureTable(rows);
}

interface Report {
  date: string;
  machine: ReturnType<typeof machine>;
  database: 'postgres' | 'embedded';
  settings: LoadSettings & { completions: number; completion_concurrency: number; webhook_rate_per_s: number; webhook_events: number };
  service: { first_start_to_healthz_ms: number; start_to_healthz_ms: number; request_to_pay: HttpFigures; high_water_rss_mb: number | null };
  /** what the service's highest resident memory over the 50-connection and fixed-rate runs was made of */
  peak_rss_parts: MemoryParts | null;
  /** the same load with METRICS_PORT set (the Prometheus endpoint served, every figure recorded) */
  metrics_on: HttpFigures | null;
  /** a start on an existing database to /healthz, and resident memory then: the build (node dist/main.js) and the sources through tsx */
  start_up: { compiled_ms: number; compiled_rss_mb: number | null; tsx_ms: number; tsx_rss_mb: number | null } | null;
  /** request-to-pay at BENCH_FIXED_RATE requests a second, whatever the answers' pace */
  fixed_rate: (HttpFigures & { offered_per_s: number }) | null;
  /** the open-loop sender at rising fixed rates: the highest with p99 under the limit */
  sweep: SweepFigures | null;
  prism: HttpFigures | null;
  floor: HttpFigures | null;
  /** 2 ROLE=api processes behind a round-robin, with a ROLE=worker process (real PostgreSQL only) */
  round_robin: (HttpFigures & { processes: number }) | null;
  ratios: { service_to_prism: number | null; service_to_floor: number | null };
  hot_wallet: HotWalletFigures | null;
  /** refunds per second on one hot wallet, through the merchant API */
  refunds: RefundFigures | null;
  /** the deliveries in a ROLE=worker process (real server only), then in the changing process */
  webhooks: WebhookFigures[] | null;
  provider_reports: ProviderReportFigures | null;
  profile: ProfileSummary | null;
  targets: typeof TARGETS;
  /** the highest resident memory sampled during the 50-connection and fixed-rate runs, held to its target */
  peak_rss_mb: number | null;
  /** each target's key: met, missed, or null when this run did not measure it */
  met: Record<string, boolean | null>;
}

async function main() {
  if (process.argv.includes('--scale')) {
    const levels = scaleLevels(process.env.BENCH_SCALE_LEVELS);
    const scale = {
      levels,
      maxCollections: setting(process.env, 'BENCH_SCALE_MAX_COLLECTIONS', 1_000_000),
      completions: setting(process.env, 'BENCH_SCALE_COMPLETIONS', 500),
      historyMonths: setting(process.env, 'BENCH_SCALE_HISTORY_MONTHS', 24),
    };
    return runScale(scale, path.resolve(process.env.BENCH_OUT || 'bench-scale-out.json'));
  }
  if (process.argv.includes('--soak')) return runSoak(soakSettings(process.env), path.resolve(process.env.BENCH_OUT || 'bench-soak-out.json'));
  if (process.argv.includes('--export')) return runExport(exportSettings(process.env), path.resolve(process.env.BENCH_OUT || 'bench-export-out.json'));
  if (process.argv.includes('--reconciliation')) {
    const out = path.resolve(process.env.BENCH_OUT || 'bench-reconciliation-out.json');
    const reconciliation = await runReconciliation(out);
    const targets = targetTable(judge({ ...NONE, reconciliation }));
    process.stdout.write(`\n${targets}\n\nFigures written to ${out}\n`);
    return;
  }
  const profileOnly = process.argv.includes('--profile');
  const refundsOnly = process.argv.includes('--refunds');
  const disbursementsOnly = process.argv.includes('--disbursements');
  const webhooksOnly = process.argv.includes('--webhooks');
  const hotWalletOnly = process.argv.includes('--hot-wallet');
  const allocationsOnly = process.argv.includes('--allocations');
  const survivorsOnly = allocationsOnly && process.argv.includes('--survivors');
  /** extra node options for the measured service (e.g. --max-semi-space-size=32), to compare settings */
  const serviceFlags = (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
  const sweepOnly = process.argv.includes('--sweep');
  const sweeping = !process.argv.includes('--no-sweep') && !profileOnly;
  const settings: LoadSettings = {
    connections: setting(process.env, 'BENCH_CONNECTIONS', 50),
    durationSeconds: setting(process.env, 'BENCH_DURATION', 10),
    warmupSeconds: setting(process.env, 'BENCH_WARMUP', 2),
  };
  const completions = setting(process.env, 'BENCH_COMPLETIONS', TARGETS.hot_wallet_min_completions);
  const refundCount = setting(process.env, 'BENCH_REFUNDS', 1000);
  const refundConcurrency = setting(process.env, 'BENCH_REFUND_CONCURRENCY', 20);
  const disbursementCount = setting(process.env, 'BENCH_DISBURSEMENTS', 500);
  const disbursementConcurrency = setting(process.env, 'BENCH_DISBURSEMENT_CONCURRENCY', 50);
  const webhookRate = setting(process.env, 'BENCH_WEBHOOK_RATE', TARGETS.webhook_rate_per_s);
  const webhookEvents = setting(process.env, 'BENCH_WEBHOOK_EVENTS', 1000);
  const reports = setting(process.env, 'BENCH_REPORTS', 2000);
  const out = path.resolve(process.env.BENCH_OUT || 'bench-out.json');
  const began = performance.now();

  const work = mkdtempSync(path.join(os.tmpdir(), 'paycollect-bench-'));
  const server = process.env.DATABASE_URL ? await freshServerDatabase(process.env.DATABASE_URL) : null;
  const pgliteVersion = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
  const children: Child[] = [];
  const receiver = await startReceiver();
  try {
    const port = await freePort();
    const operatorKey = 'op_bench_' + randomBytes(16).toString('hex');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_OPTIONS: '',
      PORT: String(port),
      DATA_DIR: work,
      DATABASE_URL: server?.url ?? '',
      OPERATOR_API_KEY: operatorKey,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      MASTER_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_RPS: '0',
      SEED_DEMO: 'false',
      SANDBOX_MM_DELAY_MS: '3600000',
    };
    process.stdout.write(`PayCollect bench on ${server ? 'real PostgreSQL' : 'embedded PostgreSQL (PGlite)'}\n`);
    const profileDir = path.join(work, 'profile');
    const base = `http://127.0.0.1:${port}`;
    // The first start creates the database (initdb, for the embedded one, inside the service process) and
    // migrates it; the measured service is the second start, as a service normally runs.
    // The service runs as `npm start` runs it: the build with plain node (the profile reads the sources through tsx).
    if (!isBuildCurrent()) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    const compiled = ['dist/main.js'];
    const first = startChild('service', process.execPath, compiled, env, path.join(work, 'service-first.log'));
    children.push(first);
    const firstStartMs = Math.round(await waitForHttp(`${base}/healthz`, first));
    const m = await setupMerchant(base, operatorKey, receiver.url);
    await stopChild(first);
    const principal = { businessId: m.businessId, apiTokenId: m.apiTokenId };
    const measureRefunds = (): Promise<RefundFigures> => {
      process.stdout.write(`  refunds: ${refundCount} completed collections refunded through the API, ${refundConcurrency} at once\n`);
      return hotWalletRefunds({
        config: loadConfig(env),
        principal,
        currency: 'UGX',
        refunds: refundCount,
        concurrency: refundConcurrency,
        body: (n) => rtpBody(`D${n}`),
        base,
        authorization: m.authorization,
        start: () => {
          const c = startChild('service', process.execPath, compiled, env, path.join(work, 'service-refunds.log'));
          children.push(c);
          return c;
        },
        stop: (c) => stopChild(c),
      });
    };
    const measureDisbursements = (): Promise<DisbursementFigures> => {
      process.stdout.write(`  disbursements: ${disbursementCount} from one wallet through the API and the simulator to COMPLETED, ${disbursementConcurrency} at once\n`);
      return hotWalletDisbursements({
        config: loadConfig(env),
        principal,
        currency: 'UGX',
        disbursements: disbursementCount,
        concurrency: disbursementConcurrency,
        body: (n) => rtpBody(`P${n}`),
        base,
        authorization: m.authorization,
        secret: m.apiSecret,
        run: randomBytes(3).toString('hex'),
        start: () => {
          // the simulator's answer is read by the first status query: soon, not after the default 30 s
          const c = startChild('service', process.execPath, compiled, { ...env, PROCESSOR_CHECK_SCHEDULE: '100ms,200ms,500ms' }, path.join(work, 'service-disbursements.log'));
          children.push(c);
          return c;
        },
        stop: (c) => stopChild(c),
      });
    };
    if (disbursementsOnly) {
      const disbursements = await measureDisbursements();
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', disbursements }, null, 2) + '\n');
      printFocused([disbursementRow(disbursements)], [], out);
      return;
    }
    if (refundsOnly) {
      const refunds = await measureRefunds();
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', refunds }, null, 2) + '\n');
      printFocused([refundRow(refunds)], judge({ ...NONE, refunds }), out);
      return;
    }
    /** The deliveries run in a ROLE=worker process of their own on a real server (as a deployment runs them), and also in the changing process itself */
    const measureWebhooks = async (): Promise<WebhookFigures[]> => {
      const figures: WebhookFigures[] = [];
      const measure = (worker?: () => Promise<{ stop(): Promise<unknown> }>) =>
        webhookLatency({ config: loadConfig(env), principal, currency: 'UGX', events: webhookEvents, ratePerSecond: webhookRate, receiver, body: (n) => rtpBody(`W${figures.length}-${n}`), worker });
      process.stdout.write(`  webhooks: ${webhookEvents} state changes at ${webhookRate}/s, delivered by the same process\n`);
      figures.push(await measure());
      if (server) {
        process.stdout.write(`  webhooks: ${webhookEvents} state changes at ${webhookRate}/s, delivered by a ROLE=worker process\n`);
        figures.unshift(await measure(async () => {
          const workerPort = await freePort();
          const c = startChild('worker', process.execPath, compiled, { ...env, ROLE: 'worker', PORT: String(workerPort) }, path.join(work, 'service-webhook-worker.log'));
          children.push(c);
          await waitForHttp(`http://127.0.0.1:${workerPort}/healthz`, c);
          return { stop: () => stopChild(c) };
        }));
      }
      return figures;
    };
    if (webhooksOnly) {
      const webhooks = await measureWebhooks();
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', webhooks }, null, 2) + '\n');
      printFocused(webhookRows(webhooks), judge({ ...NONE, webhooks }), out);
      return;
    }
    const measureHotWallet = (): Promise<HotWalletFigures> => {
      process.stdout.write(`  hot wallet: ${completions} completions, 50 at once\n`);
      return hotWallet({ config: loadConfig(env), principal, currency: 'UGX', completions, concurrency: 50, body: (n) => rtpBody(`H${n}`) });
    };
    if (hotWalletOnly) {
      const hot = await measureHotWallet();
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', hot_wallet: hot }, null, 2) + '\n');
      printFocused(hotWalletRows(hot), judge({ ...NONE, hot_wallet: hot }), out);
      return;
    }
    if (allocationsOnly) {
      const sampleFile = path.join(work, 'heap-sample.json');
      const sampler = path.join(ROOT, 'scripts', 'bench', 'heap-sampler.cjs');
      const svc = startChild('service', process.execPath, ['--require', sampler, ...serviceFlags, ...compiled], { ...env, HEAP_SAMPLE_OUT: sampleFile, HEAP_SAMPLE_SURVIVORS: survivorsOnly ? '1' : '0' }, path.join(work, 'service.log'));
      children.push(svc);
      await waitForHttp(`${base}/healthz`, svc);
      const auth = { authorization: m.authorization };
      const rtp = await measureHttp('service', 'S', svc, port, settings, auth, server?.url ?? null);
      const offered = setting(process.env, 'BENCH_FIXED_RATE', TARGETS.fixed_rate_per_s);
      // the window of the fixed-rate run only: the sampler starts and stops on SIGUSR2, once the service says so
      process.kill(svc.pid, 'SIGUSR2');
      await waitForFile(`${sampleFile}.started`, svc);
      const fixed = { ...(await measureHttp('service, heap sampled', 'X', svc, port, { ...settings, warmupSeconds: 0, ratePerSecond: offered }, auth, server?.url ?? null)), offered_per_s: offered };
      process.kill(svc.pid, 'SIGUSR2');
      await waitForFile(sampleFile, svc);
      const allocations = summarizeAllocations(JSON.parse(readFileSync(sampleFile, 'utf8')) as HeapSample, fixed.requests);
      const hwm = highWaterMb(svc.pid);
      await stopChild(svc);
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', service_node_options: serviceFlags, survivors: survivorsOnly, request_to_pay: rtp, fixed_rate: fixed, high_water_rss_mb: hwm, allocations }, null, 2) + '\n');
      const a = allocations;
      printFocused(
        [
          ['request-to-pay, 50 connections (before the sampled window)', `${fmt(rtp.req_per_s)} req/s, p99 ${fmt(rtp.p99_ms)} ms, CPU ${fmt(rtp.cpu_per_request.server_ms, 2)} ms per request`],
          [`request-to-pay at ${offered} req/s, heap sampled (its pauses count: not a latency figure)`, `${fmt(fixed.req_per_s)} answered, p99 ${fmt(fixed.p99_ms)} ms, ${fixed.errors} errors`],
          ['service node options', serviceFlags.join(' ') || '(none)'],
          ['service peak RSS (50 connections / fixed rate / high-water)', `${fmt(rtp.peak_rss_mb)} / ${fmt(fixed.peak_rss_mb)} / ${fmt(hwm)} MB`],
          ...(a.memory ? [memoryRow(a.memory)] : []),
          [
            survivorsOnly ? 'allocated per request (heap growth between collections) / of it outliving a young collection (sampled)' : 'allocated per request: heap growth between collections / sampled',
            `${fmt(a.bytes_per_request / 1024, 1)} KB / ${fmt(a.sampled_bytes_per_request / 1024, 1)} KB`,
          ],
          ['young-generation collections', `${a.young_gcs_per_1000} per 1000 requests, ${a.young_gc_ms_mean} ms each on average`],
          ['old-generation collections in the window', `${a.old_gcs}, ${a.old_gc_ms_total} ms in all`],
          ...a.parts.map((p): [string, string] => [`  part: ${p.part}`, `${fmt(p.bytes_per_request / 1024, 1)} KB (${p.percent}%)`]),
          ...a.top_sites.map((t): [string, string] => [`  site: ${t.site}`, `${fmt(t.bytes_per_request / 1024, 1)} KB (${t.percent}%)`]),
        ],
        judge({ ...NONE, service: rtp }),
        out,
      );
      return;
    }
    let tsxStart: { ms: number; rss: number | null } | null = null;
    if (!profileOnly && !sweepOnly) {
      const viaTsx = startChild('service', process.execPath, ['--import', 'tsx', 'src/main.ts'], env, path.join(work, 'service-tsx.log'));
      children.push(viaTsx);
      tsxStart = { ms: Math.round(await waitForHttp(`${base}/healthz`, viaTsx)), rss: rssMb(viaTsx.pid) };
      await stopChild(viaTsx);
    }
    // what the peak resident memory is made of, read by the service itself (scripts/bench/memory-peak.cjs)
    const memoryPeakFile = path.join(work, 'memory-peak.json');
    const memoryPeak = ['--require', path.join(ROOT, 'scripts', 'bench', 'memory-peak.cjs')];
    const svc = startChild(
      'service',
      process.execPath,
      profileOnly ? ['--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', profileDir, ...serviceFlags, 'src/main.ts'] : [...memoryPeak, ...serviceFlags, ...compiled],
      { ...env, MEMORY_PEAK_OUT: memoryPeakFile },
      path.join(work, 'service.log'),
    );
    children.push(svc);
    const startMs = Math.round(await waitForHttp(`${base}/healthz`, svc));
    const startRss = rssMb(svc.pid);
    const rtp = await measureHttp('service', 'S', svc, port, settings, { authorization: m.authorization }, server?.url ?? null);
    let fixedRate: (HttpFigures & { offered_per_s: number }) | null = null;
    if (!profileOnly) {
      const offered = setting(process.env, 'BENCH_FIXED_RATE', TARGETS.fixed_rate_per_s);
      const fixed = await measureHttp('service', 'X', svc, port, { ...settings, ratePerSecond: offered }, { authorization: m.authorization }, server?.url ?? null);
      fixedRate = { ...fixed, offered_per_s: offered };
    }
    let swept: SweepFigures | null = null;
    if (sweeping) {
      const sweepSettings = {
        from: setting(process.env, 'BENCH_SWEEP_FROM', 500),
        step: setting(process.env, 'BENCH_SWEEP_STEP', 250),
        max: setting(process.env, 'BENCH_SWEEP_MAX', 5000),
        p99LimitMs: TARGETS.fixed_rate_p99_ms,
      };
      const seconds = setting(process.env, 'BENCH_SWEEP_SECONDS', 3);
      process.stdout.write(`  service: the fixed-rate sweep, ${seconds} s a step from ${sweepSettings.from} req/s by ${sweepSettings.step}, until p99 reaches ${sweepSettings.p99LimitMs} ms\n`);
      swept = await sweep(sweepSettings, async (rate) => {
        const r = await openLoopPost({
          url: `${base}/v1/collections/request-to-pay`,
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: m.authorization },
          makeBody: (n) => JSON.stringify(rtpBody(`Y${rate}_${n}`)),
          rate,
          seconds,
        });
        process.stdout.write(`    ${rate} req/s: ${r.answered_2xx} of ${r.sent} answered, p99 ${r.p99_ms} ms, ${r.errors} errors\n`);
        return { offered_per_s: rate, sent: r.sent, answered_2xx: r.answered_2xx, errors: r.errors, p99_ms: r.p99_ms };
      });
    }
    const hwm = highWaterMb(svc.pid);
    const peakParts = existsSync(memoryPeakFile) ? memoryParts(JSON.parse(readFileSync(memoryPeakFile, 'utf8')) as MemoryPeak) : null;

    let webhooks: WebhookFigures[] | null = null;
    let providerReports: ProviderReportFigures | null = null;
    let profile: ProfileSummary | null = null;
    let profileCopy: string | null = null;
    if (profileOnly) {
      await stopChild(svc);
      const exitedAt = performance.now();
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error('the service wrote no .cpuprofile');
      const us = (ms: number) => Math.round(ms * 1000);
      profile = summarizeProfile(path.join(profileDir, file), { fromEndUs: us(exitedAt - rtp.window.start), toEndUs: us(exitedAt - rtp.window.end) });
      profileCopy = out.replace(/\.json$/, '') + '.cpuprofile';
      copyFileSync(path.join(profileDir, file), profileCopy);
    } else {
      await stopChild(svc);
    }

    let metricsOn: HttpFigures | null = null;
    if (!profileOnly && !sweepOnly) {
      const metricsPort = await freePort();
      const observed = startChild('service', process.execPath, compiled, { ...env, METRICS_PORT: String(metricsPort) }, path.join(work, 'service-metrics.log'));
      children.push(observed);
      metricsOn = await measureHttp('service, metrics on', 'M', observed, port, settings, { authorization: m.authorization }, server?.url ?? null);
      const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
      if (!scraped.includes('paycollect_collections_started_total')) throw new Error('the metrics endpoint did not report the requests just made');
      await stopChild(observed);
    }

    let hot: HotWalletFigures | null = null;
    let refunds: RefundFigures | null = null;
    let floor: HttpFigures | null = null;
    let prism: HttpFigures | null = null;
    let roundRobin: (HttpFigures & { processes: number }) | null = null;
    if (!profileOnly && !sweepOnly) {
      webhooks = await measureWebhooks();
      // by default at the rate request-to-pay was just accepted: the worker must keep up with that
      const reportRate = setting(process.env, 'BENCH_REPORT_RATE', Math.max(1, Math.round(rtp.req_per_s)));
      process.stdout.write(`  provider reports: ${reports} due at once, then ${reports} at ${reportRate}/s\n`);
      providerReports = await providerReportLag({ config: loadConfig(env), principal, reports, ratePerSecond: reportRate, body: (n) => rtpBody(`R${n}`) });
      hot = await measureHotWallet();
      refunds = await measureRefunds();
      // the disbursement case (--disbursements) is not in the default run: 500 took over a minute on a
      // loaded 2-core machine (each call checks the API secret's argon2 hash), past the ~30 s it may add

      const floorPort = await freePort();
      const floorChild = startChild('floor', process.execPath, ['--import', 'tsx', 'scripts/bench/floor.ts'], {
        ...env,
        PORT: String(floorPort),
        FLOOR_BUSINESS_ID: String(m.businessId),
        FLOOR_TOKEN_ID: String(m.apiTokenId),
        FLOOR_MID_ID: String(m.midId),
      }, path.join(work, 'floor.log'));
      children.push(floorChild);
      floor = await measureHttp('floor', 'F', floorChild, floorPort, settings, {}, server?.url ?? null);
      await stopChild(floorChild);

      const prismPort = await freePort();
      const prismChild = startChild('prism', path.join(ROOT, 'node_modules/.bin/prism'), ['mock', 'generated/openapi.yaml', '-h', '127.0.0.1', '-p', String(prismPort)], env, path.join(work, 'prism.log'));
      children.push(prismChild);
      prism = await measureHttp('Prism mock', 'P', prismChild, prismPort, settings, { authorization: m.authorization }, null);
      await stopChild(prismChild);

      // ROLE=api / ROLE=worker need a PostgreSQL server (the embedded database belongs to one process)
      if (server) {
        roundRobin = await measureRoundRobin({ apis: 2, env, work, settings, headers: { authorization: m.authorization }, makeBody: (n) => JSON.stringify(rtpBody(`N${n}`)) });
      }
    }

    const report: Report = {
      date: new Date().toISOString(),
      machine: machine(server?.version ?? `PGlite ${pgliteVersion} (embedded PostgreSQL, in the service process)`),
      database: server ? 'postgres' : 'embedded',
      settings: { ...settings, completions, completion_concurrency: 50, webhook_rate_per_s: webhookRate, webhook_events: webhookEvents },
      service: { first_start_to_healthz_ms: firstStartMs, start_to_healthz_ms: startMs, request_to_pay: rtp, high_water_rss_mb: hwm },
      peak_rss_parts: peakParts,
      metrics_on: metricsOn,
      start_up: tsxStart ? { compiled_ms: startMs, compiled_rss_mb: startRss, tsx_ms: tsxStart.ms, tsx_rss_mb: tsxStart.rss } : null,
      fixed_rate: fixedRate,
      sweep: swept,
      prism,
      floor,
      round_robin: roundRobin,
      ratios: { service_to_prism: ratio(rtp, prism), service_to_floor: ratio(rtp, floor) },
      hot_wallet: hot,
      refunds,
      webhooks,
      provider_reports: providerReports,
      profile,
      targets: TARGETS,
      peak_rss_mb: null,
      met: {},
    };
    const judged = judge({ service: rtp, fixed_rate: fixedRate, prism, floor, hot_wallet: hot, refunds, webhooks, reconciliation: null });
    report.met = Object.fromEntries(judged.map((j) => [j.key, j.met]));
    report.peak_rss_mb = peakRss({ ...NONE, service: rtp, fixed_rate: fixedRate });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');

    process.stdout.write(`\n${table(report)}\n`);
    const targets = targetTable(judged);
    if (targets) process.stdout.write(`\nTargets (docs/performance.md):\n${targets}\n`);
    process.stdout.write(
      `\n${report.database} database (${report.machine.database}); ${report.machine.cpus} x ${report.machine.cpu_model}, ${report.machine.memory_gb} GiB, ` +
        `Node ${report.machine.node}, commit ${report.machine.commit}${report.machine.uncommitted_changes ? ' + changes' : ''}; ` +
        `service start to /healthz ${startMs} ms (first start, creating the database: ${firstStartMs} ms), ` +
        `process RSS high-water ${fmt(hwm)} MB\n`,
    );
    if (profile) {
      process.stdout.write(`\nWhere the service's CPU time went (${profile.total_ms} ms sampled, self time):\n`);
      for (const p of profile.parts.slice(0, 14)) process.stdout.write(`  ${String(p.percent).padStart(5)}%  ${p.part}\n`);
      process.stdout.write('Top functions:\n');
      for (const f of profile.top_functions) process.stdout.write(`  ${String(f.percent).padStart(5)}%  ${f.fn}\n`);
      process.stdout.write(`The whole profile (start-up included; open it in Chrome DevTools): ${profileCopy}\n`);
    }
    process.stdout.write(`\nFigures written to ${out} (${Math.round((performance.now() - began) / 1000)} s)\n`);
  } finally {
    for (const c of children) await stopChild(c, 5000);
    await receiver.close();
    await server?.drop();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
    else process.stdout.write(`Work directory kept (BENCH_KEEP): ${work}\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
