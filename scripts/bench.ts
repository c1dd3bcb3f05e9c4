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
//   npm run bench -- --refunds         the refund case only: refunds per second on one hot wallet, balance exact
//   npm run bench -- --disbursements   the disbursement case (not in the default run): disbursements per second on one hot wallet to COMPLETED, balance exact
//   npm run bench -- --webhooks        the webhook case only: latency from state change to receiver at BENCH_WEBHOOK_RATE, delivered by a
//                                      ROLE=worker process (real server only; the target) and by the changing process itself
//   npm run bench -- --hot-wallet      the hot-wallet case only: BENCH_COMPLETIONS completions on one wallet, 50 at once, balance exact
//   npm run bench -- --sweep           request-to-pay only: 50 connections, the fixed rate, then the fixed-rate sweep
//   npm run bench -- --no-sweep        all figures but the fixed-rate sweep
// Settings: BENCH_CONNECTIONS (50), BENCH_DURATION seconds (10), BENCH_WARMUP seconds (2), BENCH_FIXED_RATE
// req/s (500: request-to-pay again at that fixed offered load, for its p99),
// BENCH_COMPLETIONS (2000), BENCH_REFUNDS (1000), BENCH_REFUND_CONCURRENCY (20), BENCH_DISBURSEMENTS (500), BENCH_DISBURSEMENT_CONCURRENCY (50), BENCH_WEBHOOK_RATE events/s (500, the target's rate), BENCH_WEBHOOK_EVENTS (1000),
// BENCH_REPORT_RATE provider reports/s (the request-to-pay rate just measured), BENCH_REPORTS (2000);
// the fixed-rate sweep (scripts/bench/sweep.ts): BENCH_SWEEP_FROM req/s (500), BENCH_SWEEP_STEP (250), BENCH_SWEEP_MAX (5000),
// BENCH_SWEEP_SECONDS a step (3): the open-loop sender at each rate until p99 reaches 25 ms or a request fails;
// --scale: BENCH_SCALE_LEVELS (0,1000000,10000000), BENCH_SCALE_MAX_COLLECTIONS (1000000), BENCH_SCALE_COMPLETIONS (500),
// BENCH_SCALE_HISTORY_MONTHS (24). BENCH_KEEP=1 keeps the work directory (the children's logs) and prints where it is.
// --soak: BENCH_SOAK_SECONDS (600), BENCH_SOAK_WINDOW seconds (60), BENCH_SOAK_RATE requests/s (50).
// --export: BENCH_EXPORT_ROWS (1000000), BENCH_EXPORT_SLOW_ROWS (100000).
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { exportSettings, runExport } from './bench/export';
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
import { freePort, highWaterMb, loadPost, ROOT, rssMb, setting, startChild, stopChild, waitForHttp } from './bench/lib';
import type { Child, HttpFigures, LoadSettings } from './bench/lib';
import { summarizeProfile } from './bench/profile';
import type { ProfileSummary } from './bench/profile';
import { providerReportLag } from './bench/provider-reports';
import type { ProviderReportFigures } from './bench/provider-reports';
import { startReceiver, webhookLatency } from './bench/webhooks';
import type { WebhookFigures } from './bench/webhooks';

const TARGETS = {
  vs_prism: 1.5,
  vs_floor: 0.5,
  p99_ms: 50,
  fixed_rate_p99_ms: 25,
  /** the sweep's highest rate must at least hold the fixed rate's target load */
  fixed_rate_sweep_per_s: 500,
  hot_wallet_per_s: 2000,
  webhook_p99_ms: 250,
  peak_rss_mb: 250,
};

/** `tag` keeps each target's merchant references apart (the floor inserts into the service's table). */
async function measureHttp(name: string, tag: string, child: Child, port: number, settings: LoadSettings, headers: Record<string, string>, postgres: boolean): Promise<HttpFigures> {
  await waitForHttp(`http://127.0.0.1:${port}/`, child);
  const load = settings.ratePerSecond ? `a fixed ${settings.ratePerSecond} req/s, sent open-loop` : `${settings.connections} connections`;
  process.stdout.write(`  ${name}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s at ${load}\n`);
  return loadPost({
    url: `http://127.0.0.1:${port}/v1/collections/request-to-pay`,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    makeBody: (n) => JSON.stringify(rtpBody(`${tag}${n}`)),
    settings,
    pid: child.pid,
    postgres,
  });
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));
const sweepResult = (s: SweepFigures) =>
  `${s.highest_held_per_s === null ? 'none' : `${s.highest_held_per_s} req/s`} (${s.steps.map((t) => `${t.offered_per_s}: p99 ${fmt(t.p99_ms)} ms${t.errors > 0 ? `, ${t.errors} errors` : ''}`).join('; ')}${s.stopped === 'max' ? '; stopped at BENCH_SWEEP_MAX' : ''})`;
/** The first figure is the one held to the target: the deliveries in a worker process where there is a real server */
const webhookRows = (ws: WebhookFigures[]): [string, string, string][] =>
  ws.map((w, i) => [
    `webhook latency, ${w.processes === 'one' ? 'deliveries in the changing process' : 'API process + worker process'}`,
    `p50 ${fmt(w.p50_ms)} ms, p99 ${fmt(w.p99_ms)} ms at ${w.rate_per_s}/s (${w.delivered}/${w.events} delivered)`,
    i === 0 ? `p99 <= ${TARGETS.webhook_p99_ms} ms` : '',
  ]);

const disbursementRow = (d: DisbursementFigures): [string, string, string] => [
  'hot wallet disbursements through the API to COMPLETED',
  `${fmt(d.per_s)}/s (${d.disbursements} by ${d.concurrency}, accepted at ${fmt(d.accepted_per_s)}/s, ${d.errors} errors), balance ${d.exact_balance ? 'exact' : 'WRONG'}`,
  'exact, 0 errors',
];

function table(r: Report): string {
  const rows: [string, string, string][] = [
    ['request-to-pay, this service', `${fmt(r.service.request_to_pay.req_per_s)} req/s, p50 ${fmt(r.service.request_to_pay.p50_ms)} ms, p99 ${fmt(r.service.request_to_pay.p99_ms)} ms, ${r.service.request_to_pay.errors} errors`, `p99 <= ${TARGETS.p99_ms} ms, 0 errors`],
    ['request-to-pay, metrics on (METRICS_PORT)', r.metrics_on ? `${fmt(r.metrics_on.req_per_s)} req/s, p50 ${fmt(r.metrics_on.p50_ms)} ms, p99 ${fmt(r.metrics_on.p99_ms)} ms, ${r.metrics_on.errors} errors` : '-', ''],
    ['start to /healthz and RSS then: build / tsx', r.start_up ? `${r.start_up.compiled_ms} ms, ${fmt(r.start_up.compiled_rss_mb)} MB / ${r.start_up.tsx_ms} ms, ${fmt(r.start_up.tsx_rss_mb)} MB` : '-', ''],
    ['request-to-pay at a fixed offered load', r.fixed_rate ? `${fmt(r.fixed_rate.req_per_s)} of ${r.fixed_rate.offered_per_s} req/s answered, p50 ${fmt(r.fixed_rate.p50_ms)} ms, p99 ${fmt(r.fixed_rate.p99_ms)} ms, ${r.fixed_rate.errors} errors` : '-', `p99 <= ${TARGETS.fixed_rate_p99_ms} ms at ${r.fixed_rate?.offered_per_s ?? '-'} req/s`],
    ['highest fixed rate with p99 under 25 ms (sweep)', r.sweep ? sweepResult(r.sweep) : '-', `>= ${TARGETS.fixed_rate_sweep_per_s} req/s`],
    ['request-to-pay, Prism mock', r.prism ? `${fmt(r.prism.req_per_s)} req/s, p50 ${fmt(r.prism.p50_ms)} ms, p99 ${fmt(r.prism.p99_ms)} ms, ${r.prism.errors} errors` : '-', ''],
    ['request-to-pay, 2 API processes + worker (round-robin)', r.round_robin ? `${fmt(r.round_robin.req_per_s)} req/s, p50 ${fmt(r.round_robin.p50_ms)} ms, p99 ${fmt(r.round_robin.p99_ms)} ms, ${r.round_robin.errors} errors` : '-', ''],
    ['request-to-pay, node:http floor', r.floor ? `${fmt(r.floor.req_per_s)} req/s, p50 ${fmt(r.floor.p50_ms)} ms, p99 ${fmt(r.floor.p99_ms)} ms, ${r.floor.errors} errors` : '-', ''],
    ['service / Prism', `${fmt(r.ratios.service_to_prism, 2)}x`, `>= ${TARGETS.vs_prism}x`],
    ['service / floor', `${fmt(r.ratios.service_to_floor, 2)}x`, `>= ${TARGETS.vs_floor}x`],
    ['CPU ms per request (process + PostgreSQL)', [['service', r.service.request_to_pay], ['floor', r.floor], ['Prism', r.prism]]
      .filter((e): e is [string, HttpFigures] => e[1] !== null)
      .map(([n, f]) => `${n} ${fmt(f.cpu_per_request.server_ms, 2)}${f.cpu_per_request.postgres_ms === null ? '' : ` + ${fmt(f.cpu_per_request.postgres_ms, 2)}`}`)
      .join(', '), ''],
    ['service peak RSS under load', `${fmt(r.service.request_to_pay.peak_rss_mb)} MB`, `<= ${TARGETS.peak_rss_mb} MB`],
    ['hot wallet completions', r.hot_wallet ? `${fmt(r.hot_wallet.per_s)}/s (${r.hot_wallet.completions} by ${r.hot_wallet.concurrency}), balance ${r.hot_wallet.exact_balance ? 'exact' : 'WRONG'}` : '-', `>= ${TARGETS.hot_wallet_per_s}/s, exact`],
    ['hot wallet refunds through the API', r.refunds ? `${fmt(r.refunds.per_s)}/s (${r.refunds.refunds} by ${r.refunds.concurrency}, ${r.refunds.errors} errors), balance ${r.refunds.exact_balance ? 'exact' : 'WRONG'}` : '-', 'exact, 0 errors'],
    ['CPU ms per completion (process + PostgreSQL)', r.hot_wallet ? `${fmt(r.hot_wallet.cpu_ms_per_completion.process_ms, 2)}${r.hot_wallet.cpu_ms_per_completion.postgres_ms === null ? '' : ` + ${fmt(r.hot_wallet.cpu_ms_per_completion.postgres_ms, 2)}`}` : '-', ''],
    ['provider-report worker lag', r.provider_reports ? `p50 ${fmt(r.provider_reports.lag_p50_ms)} ms, p99 ${fmt(r.provider_reports.lag_p99_ms)} ms, max ${fmt(r.provider_reports.lag_max_ms)} ms at ${r.provider_reports.rate_per_s}/s; a backlog drains at ${fmt(r.provider_reports.backlog_drained_per_s)}/s` : '-', 'keeps up with the accepted rate'],
    ...(r.webhooks ? webhookRows(r.webhooks) : [['webhook latency', '-', `p99 <= ${TARGETS.webhook_p99_ms} ms`] as [string, string, string]]),
  ];
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length), ['what', 'result', 'target'][i].length));
  const line = (c: string[]) => '| ' + c.map((v, i) => v.padEnd(w[i])).join(' | ') + ' |';
  return [line(['what', 'result', 'target']), '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|', ...rows.map(line)].join('\n');
}

interface Report {
  date: string;
  machine: ReturnType<typeof machine>;
  database: 'postgres' | 'embedded';
  settings: LoadSettings & { completions: number; completion_concurrency: number; webhook_rate_per_s: number; webhook_events: number };
  service: { first_start_to_healthz_ms: number; start_to_healthz_ms: number; request_to_pay: HttpFigures; high_water_rss_mb: number | null };
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
  const profileOnly = process.argv.includes('--profile');
  const refundsOnly = process.argv.includes('--refunds');
  const disbursementsOnly = process.argv.includes('--disbursements');
  const webhooksOnly = process.argv.includes('--webhooks');
  const hotWalletOnly = process.argv.includes('--hot-wallet');
  const sweepOnly = process.argv.includes('--sweep');
  const sweeping = !process.argv.includes('--no-sweep') && !profileOnly;
  const settings: LoadSettings = {
    connections: setting(process.env, 'BENCH_CONNECTIONS', 50),
    durationSeconds: setting(process.env, 'BENCH_DURATION', 10),
    warmupSeconds: setting(process.env, 'BENCH_WARMUP', 2),
  };
  const completions = setting(process.env, 'BENCH_COMPLETIONS', 2000);
  const refundCount = setting(process.env, 'BENCH_REFUNDS', 1000);
  const refundConcurrency = setting(process.env, 'BENCH_REFUND_CONCURRENCY', 20);
  const disbursementCount = setting(process.env, 'BENCH_DISBURSEMENTS', 500);
  const disbursementConcurrency = setting(process.env, 'BENCH_DISBURSEMENT_CONCURRENCY', 50);
  const webhookRate = setting(process.env, 'BENCH_WEBHOOK_RATE', 500);
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
      const rows: [string, string, string][] = [['what', 'result', 'target'], disbursementRow(disbursements)];
      process.stdout.write(`\n${rows.map((r) => '| ' + r.join(' | ') + ' |').join('\n')}\n\nFigures written to ${out}\n`);
      return;
    }
    if (refundsOnly) {
      const refunds = await measureRefunds();
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', refunds }, null, 2) + '\n');
      const rows: [string, string, string][] = [
        ['what', 'result', 'target'],
        ['hot wallet refunds through the API', `${fmt(refunds.per_s)}/s (${refunds.refunds} by ${refunds.concurrency}, ${refunds.errors} errors), balance ${refunds.exact_balance ? 'exact' : 'WRONG'}`, 'exact, 0 errors'],
      ];
      process.stdout.write(`\n${rows.map((r) => '| ' + r.join(' | ') + ' |').join('\n')}\n\nFigures written to ${out}\n`);
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
      const rows: [string, string, string][] = [
        ['what', 'result', 'target'],
        ...webhookRows(webhooks),
      ];
      process.stdout.write(`\n${rows.map((r) => '| ' + r.join(' | ') + ' |').join('\n')}\n\nFigures written to ${out}\n`);
      return;
    }
    const measureHotWallet = (): Promise<HotWalletFigures> => {
      process.stdout.write(`  hot wallet: ${completions} completions, 50 at once\n`);
      return hotWallet({ config: loadConfig(env), principal, currency: 'UGX', completions, concurrency: 50, body: (n) => rtpBody(`H${n}`) });
    };
    if (hotWalletOnly) {
      const hot = await measureHotWallet();
      writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), database: server ? 'postgres' : 'embedded', hot_wallet: hot }, null, 2) + '\n');
      const rows: [string, string, string][] = [
        ['what', 'result', 'target'],
        ['hot wallet completions', `${fmt(hot.per_s)}/s (${hot.completions} by ${hot.concurrency}), balance ${hot.exact_balance ? 'exact' : 'WRONG'}`, `>= ${TARGETS.hot_wallet_per_s}/s, exact`],
        ['CPU ms per completion (process + PostgreSQL)', `${fmt(hot.cpu_ms_per_completion.process_ms, 2)}${hot.cpu_ms_per_completion.postgres_ms === null ? '' : ` + ${fmt(hot.cpu_ms_per_completion.postgres_ms, 2)}`}`, ''],
      ];
      process.stdout.write(`\n${rows.map((r) => '| ' + r.join(' | ') + ' |').join('\n')}\n\nFigures written to ${out}\n`);
      return;
    }
    let tsxStart: { ms: number; rss: number | null } | null = null;
    if (!profileOnly && !sweepOnly) {
      const viaTsx = startChild('service', process.execPath, ['--import', 'tsx', 'src/main.ts'], env, path.join(work, 'service-tsx.log'));
      children.push(viaTsx);
      tsxStart = { ms: Math.round(await waitForHttp(`${base}/healthz`, viaTsx)), rss: rssMb(viaTsx.pid) };
      await stopChild(viaTsx);
    }
    const svc = startChild('service', process.execPath, profileOnly ? ['--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', profileDir, 'src/main.ts'] : compiled, env, path.join(work, 'service.log'));
    children.push(svc);
    const startMs = Math.round(await waitForHttp(`${base}/healthz`, svc));
    const startRss = rssMb(svc.pid);
    const rtp = await measureHttp('service', 'S', svc, port, settings, { authorization: m.authorization }, server !== null);
    let fixedRate: (HttpFigures & { offered_per_s: number }) | null = null;
    if (!profileOnly) {
      const offered = setting(process.env, 'BENCH_FIXED_RATE', 500);
      const fixed = await measureHttp('service', 'X', svc, port, { ...settings, ratePerSecond: offered }, { authorization: m.authorization }, server !== null);
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
      metricsOn = await measureHttp('service, metrics on', 'M', observed, port, settings, { authorization: m.authorization }, server !== null);
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
      floor = await measureHttp('floor', 'F', floorChild, floorPort, settings, {}, server !== null);
      await stopChild(floorChild);

      const prismPort = await freePort();
      const prismChild = startChild('prism', path.join(ROOT, 'node_modules/.bin/prism'), ['mock', 'generated/openapi.yaml', '-h', '127.0.0.1', '-p', String(prismPort)], env, path.join(work, 'prism.log'));
      children.push(prismChild);
      prism = await measureHttp('Prism mock', 'P', prismChild, prismPort, settings, { authorization: m.authorization }, false);
      await stopChild(prismChild);

      // ROLE=api / ROLE=worker need a PostgreSQL server (the embedded database belongs to one process)
      if (server) {
        roundRobin = await measureRoundRobin({ apis: 2, env, work, settings, headers: { authorization: m.authorization }, makeBody: (n) => JSON.stringify(rtpBody(`N${n}`)) });
      }
    }

    const ratio = (a: number, b: HttpFigures | null) => (b && b.req_per_s > 0 ? Math.round((a / b.req_per_s) * 100) / 100 : null);
    const report: Report = {
      date: new Date().toISOString(),
      machine: machine(server?.version ?? `PGlite ${pgliteVersion} (embedded PostgreSQL, in the service process)`),
      database: server ? 'postgres' : 'embedded',
      settings: { ...settings, completions, completion_concurrency: 50, webhook_rate_per_s: webhookRate, webhook_events: webhookEvents },
      service: { first_start_to_healthz_ms: firstStartMs, start_to_healthz_ms: startMs, request_to_pay: rtp, high_water_rss_mb: hwm },
      metrics_on: metricsOn,
      start_up: tsxStart ? { compiled_ms: startMs, compiled_rss_mb: startRss, tsx_ms: tsxStart.ms, tsx_rss_mb: tsxStart.rss } : null,
      fixed_rate: fixedRate,
      sweep: swept,
      prism,
      floor,
      round_robin: roundRobin,
      ratios: { service_to_prism: ratio(rtp.req_per_s, prism), service_to_floor: ratio(rtp.req_per_s, floor) },
      hot_wallet: hot,
      refunds,
      webhooks,
      provider_reports: providerReports,
      profile,
      targets: TARGETS,
      met: {},
    };
    const atLeast = (v: number | null | undefined, t: number) => (v === null || v === undefined ? null : v >= t);
    const atMost = (v: number | null | undefined, t: number) => (v === null || v === undefined ? null : v <= t);
    report.met = {
      vs_prism: atLeast(report.ratios.service_to_prism, TARGETS.vs_prism),
      vs_floor: atLeast(report.ratios.service_to_floor, TARGETS.vs_floor),
      p99_ms: atMost(rtp.p99_ms, TARGETS.p99_ms),
      fixed_rate_sweep_per_s: swept ? swept.highest_held_per_s !== null && swept.highest_held_per_s >= TARGETS.fixed_rate_sweep_per_s : null,
      fixed_rate_p99_ms: fixedRate ? fixedRate.errors === 0 && fixedRate.p99_ms <= TARGETS.fixed_rate_p99_ms : null,
      zero_errors: rtp.errors === 0,
      hot_wallet_per_s: hot ? hot.exact_balance && hot.per_s >= TARGETS.hot_wallet_per_s : null,
      refunds_exact: refunds ? refunds.exact_balance : null,
      webhook_p99_ms: webhooks ? webhooks[0].delivered === webhooks[0].events && webhooks[0].p99_ms <= TARGETS.webhook_p99_ms : null,
      peak_rss_mb: atMost(rtp.peak_rss_mb, TARGETS.peak_rss_mb),
    };
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');

    process.stdout.write(`\n${table(report)}\n`);
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
