// `npm run bench -- --soak`: one service under a steady mixed load for BENCH_SOAK_SECONDS (600). Six in ten
// requests are request-to-pay to a designated success number (each completes after SANDBOX_MM_DELAY_MS and
// sends a webhook to a local receiver); the rest read one collection, the balances and the first list page.
// Every BENCH_SOAK_WINDOW seconds (60) it prints that window's RSS, latency percentiles and errors, so a leak
// or a drift shows as a trend; at the end, the webhooks received against the payments accepted.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, percentile, rssMb, setting, sleep, startChild, stopChild, waitForHttp } from './lib';
import type { Child } from './lib';
import { freshServerDatabase, rtpBody, setupMerchant } from './setup';
import { startReceiver } from './webhooks';

/** Past this many requests in flight the service is not keeping up: a request not sent counts as an error. */
const MAX_IN_FLIGHT = 200;
/** How long the webhooks of the last payments may take to arrive after the load stops. */
const DRAIN_MS = 60_000;

export interface SoakWindow {
  second: number;
  requests: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  rss_mb: number | null;
}

export interface SoakSettings {
  seconds: number;
  windowSeconds: number;
  ratePerSecond: number;
}

export function soakSettings(env: NodeJS.ProcessEnv): SoakSettings {
  return {
    seconds: setting(env, 'BENCH_SOAK_SECONDS', 600),
    windowSeconds: setting(env, 'BENCH_SOAK_WINDOW', 60),
    ratePerSecond: setting(env, 'BENCH_SOAK_RATE', 50),
  };
}

type Kind = 'pay' | 'get' | 'balances' | 'list';
const MIX: Kind[] = ['pay', 'pay', 'pay', 'pay', 'pay', 'pay', 'get', 'get', 'balances', 'list'];

export async function runSoak(o: SoakSettings, out: string): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'paycollect-soak-'));
  const server = process.env.DATABASE_URL ? await freshServerDatabase(process.env.DATABASE_URL) : null;
  const receiver = await startReceiver();
  let svc: Child | null = null;
  try {
    const port = await freePort();
    const operatorKey = 'op_soak_' + randomBytes(16).toString('hex');
    const env: NodeJS.ProcessEnv = {
      ...process.env, NODE_OPTIONS: '', PORT: String(port), DATA_DIR: work, DATABASE_URL: server?.url ?? '',
      OPERATOR_API_KEY: operatorKey, JWT_SECRET: randomBytes(32).toString('base64url'), MASTER_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_RPS: '0', SEED_DEMO: 'false', SANDBOX_MM_DELAY_MS: '1000',
    };
    const base = `http://127.0.0.1:${port}`;
    svc = startChild('service', process.execPath, ['--import', 'tsx', 'src/main.ts'], env, path.join(work, 'service.log'));
    await waitForHttp(`${base}/healthz`, svc);
    const m = await setupMerchant(base, operatorKey, receiver.url);
    process.stdout.write(`PayCollect soak on ${server ? 'real PostgreSQL' : 'embedded PostgreSQL (PGlite)'}: ${o.ratePerSecond} req/s for ${o.seconds} s\n`);
    process.stdout.write('  second  requests  errors  p50 ms  p99 ms  RSS MB\n');
    const windows = await drive(o, base, m.authorization, svc.pid);
    const accepted = windows.accepted;
    const deadline = performance.now() + DRAIN_MS;
    while (receiver.arrivals.size < accepted && performance.now() < deadline) await sleep(250);
    const errors = windows.rows.reduce((n, w) => n + w.errors, 0);
    const report = { settings: o, database: server ? 'postgres' : 'embedded', windows: windows.rows, payments_accepted: accepted, webhooks_received: receiver.arrivals.size, errors };
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    process.stdout.write(`\n${errors} errors; ${receiver.arrivals.size} of ${accepted} payments' COMPLETED webhooks received; figures in ${out}\n`);
  } finally {
    if (svc) await stopChild(svc, 5000);
    await receiver.close();
    await server?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The open-loop load: one request every 1/rate seconds whatever the answers' pace, summed per window. */
async function drive(o: SoakSettings, base: string, authorization: string, pid: number): Promise<{ rows: SoakWindow[]; accepted: number }> {
  const headers = { authorization, accept: 'application/json', 'content-type': 'application/json' };
  const references: string[] = [];
  const rows: SoakWindow[] = [];
  let latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let accepted = 0;
  const one = async (n: number) => {
    const reference = references[references.length - 1];
    // Until the first payment's answer gives a reference to read, a read is sent as a payment (and counted as one).
    const kind = reference === undefined ? 'pay' : MIX[n % MIX.length];
    const started = performance.now();
    try {
      const res = await send(kind, n, base, headers, reference);
      if (res.status !== 200) errors++;
      else if (kind === 'pay') {
        accepted++;
        references.push(((await res.json()) as { data: { gateway_reference: string } }).data.gateway_reference);
        if (references.length > 1000) references.splice(0, 500);
      } else await res.arrayBuffer();
      latencies.push(performance.now() - started);
    } catch {
      errors++;
    } finally {
      inFlight--;
    }
  };
  const began = performance.now();
  let n = 0;
  for (let w = 1; w * o.windowSeconds <= o.seconds; w++) {
    const windowEnd = began + w * o.windowSeconds * 1000;
    while (performance.now() < windowEnd) {
      const due = began + (n * 1000) / o.ratePerSecond;
      if (due > performance.now()) await sleep(Math.min(due, windowEnd) - performance.now());
      if (due > windowEnd) break;
      if (inFlight >= MAX_IN_FLIGHT) errors++;
      else {
        inFlight++;
        void one(n);
      }
      n++;
    }
    const sorted = latencies.sort((a, b) => a - b);
    const row = { second: w * o.windowSeconds, requests: sorted.length, errors, p50_ms: Math.round(percentile(sorted, 50)), p99_ms: Math.round(percentile(sorted, 99)), rss_mb: rssMb(pid) };
    rows.push(row);
    process.stdout.write(`  ${[row.second, row.requests, row.errors, row.p50_ms, row.p99_ms, row.rss_mb ?? '-'].map((v) => String(v).padStart(6)).join('  ')}\n`);
    latencies = [];
    errors = 0;
  }
  while (inFlight > 0) await sleep(50);
  return { rows, accepted };
}

function send(kind: Kind, n: number, base: string, headers: Record<string, string>, reference: string | undefined): Promise<Response> {
  const signal = AbortSignal.timeout(10_000);
  if (kind === 'pay' || reference === undefined) {
    return fetch(`${base}/v1/collections/request-to-pay`, { method: 'POST', headers, body: JSON.stringify(rtpBody(`SOAK${n}`)), signal });
  }
  const paths: Record<Exclude<Kind, 'pay'>, string> = {
    get: `/v1/collections/${reference}`,
    balances: '/v1/data/wallets/balances',
    list: '/v1/collections?per_page=10',
  };
  return fetch(base + paths[kind], { headers, signal });
}
