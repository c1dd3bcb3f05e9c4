// `npm run bench -- --scale`: whether the costs grow with the data. One merchant's hot wallet and
// collection history are grown through SQL (seed-postings.sql, seed-collections.sql) to each level of
// BENCH_SCALE_LEVELS (default 0, 1 and 10 million wallet postings; the collections grow with them up to
// BENCH_SCALE_MAX_COLLECTIONS, default 1 million, because each one costs far more to build than a
// posting: its row, five indexes and its count), and at each level the bench reads, through HTTP on
// the service running in this process: the wallet's balance, the first page of GET /v1/collections
// (with its exact X-PH-Total) and a status-filtered page, each as the median of sequential requests;
// then it completes BENCH_SCALE_COMPLETIONS collections into the wallet with 50 callers (completions
// per second and CPU per completion, the balance checked exact). Each built collection also leaves the
// history a payment leaves (seed-history.sql: notification, delivery attempt, two emails, an audit entry per
// 100) spread over BENCH_SCALE_HISTORY_MONTHS (24) months, and each level times one run of the retention
// worker over it, which must stay bounded however much history there is.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { pgp } from '../../src/db';
import { createLogger } from '../../src/log';
import { startService } from '../../src/server';
import type { RunningService } from '../../src/server';
import { countCollections } from '../../src/collections/counts';
import { completeAll, pendingCollections } from './hot-wallet';
import type { HotWalletFigures } from './hot-wallet';
import { percentile, round1, ROOT } from './lib';
import { freshServerDatabase, machine, rtpBody, setupMerchant } from './setup';

const seedCollections = new pgp.QueryFile(path.join(ROOT, 'scripts', 'bench', 'seed-collections.sql'), { minify: true, noWarnings: true });
const seedHistory = new pgp.QueryFile(path.join(ROOT, 'scripts', 'bench', 'seed-history.sql'), { minify: true, noWarnings: true });
const seedPostings = new pgp.QueryFile(path.join(ROOT, 'scripts', 'bench', 'seed-postings.sql'), { minify: true, noWarnings: true });

/** Rows written per statement while growing the data (each its own transaction). */
const SEED_BATCH = 250_000;
const READS = 25;
const TARGETS = { balance_read_ms: 5, list_page_ms: 20 };

export interface ScaleSettings {
  levels: number[];
  maxCollections: number;
  completions: number;
  /** months the built history is spread over */
  historyMonths: number;
}

interface Timing {
  p50_ms: number;
  max_ms: number;
}

interface LevelFigures {
  level: number;
  wallet_postings: number;
  collections: number;
  /** seconds this level's data took to build */
  build_s: number;
  balance_read: Timing;
  /** the same reads without HTTP: the services' own calls, database round trips included */
  balance_read_service: Timing;
  first_page_service: Timing;
  first_page: Timing & { total: number };
  filtered_page: Timing & { total: number; filter: string };
  completions: HotWalletFigures;
  /** rows of the history tables (delivery attempts, emails, audit entries) before the retention run */
  history_rows: number;
  /** one run of the retention worker: rows deleted and how long it took */
  retention_run: { deleted: number; ms: number };
}

export function scaleLevels(raw: string | undefined): number[] {
  const levels = (raw ?? '0,1000000,10000000').split(',').map((v) => v.trim());
  if (levels.some((v) => !/^\d{1,9}$/.test(v))) throw new Error(`BENCH_SCALE_LEVELS must be whole numbers separated by commas, got "${raw}"`);
  return levels.map(Number).sort((a, b) => a - b);
}

/** Median and maximum of `READS` sequential calls of `fn` (after 3 unmeasured ones). */
async function timed(fn: () => Promise<unknown>): Promise<Timing> {
  const ms: number[] = [];
  for (let i = 0; i < READS + 3; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= 3) ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50_ms: round1(percentile(ms, 50)), max_ms: round1(ms[ms.length - 1]) };
}

/** Median and maximum of `READS` sequential GETs (after 3 unmeasured ones), each checked to answer 200. */
async function timedGet(url: string, authorization: string): Promise<Timing & { total: number }> {
  const ms: number[] = [];
  let total = 0;
  for (let i = 0; i < READS + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization, accept: 'application/json' } });
    await res.arrayBuffer();
    const took = performance.now() - t0;
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    total = Number(res.headers.get('x-ph-total') ?? 0);
    if (i >= 3) ms.push(took);
  }
  ms.sort((a, b) => a - b);
  return { p50_ms: round1(percentile(ms, 50)), max_ms: round1(ms[ms.length - 1]), total };
}

async function walletPostings(svc: RunningService, walletId: number): Promise<number> {
  const { n } = await svc.services.db.one<{ n: number }>(
    'SELECT count(*)::int AS n FROM postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE a.wallet_id = $1',
    [walletId],
  );
  return n;
}

/** Grows the wallet's postings to `level` and the business's collections to `collections`, in batches. */
async function grow(svc: RunningService, businessId: number, walletId: number, level: number, collections: number, historyMonths: number): Promise<void> {
  const { db } = svc.services;
  const accounts = await db.many<{ id: number; kind: string }>("SELECT id, kind FROM ledger_accounts WHERE wallet_id = $1 AND kind IN ('available', 'reserved')", [walletId]);
  const id = (kind: string) => accounts.find((a) => a.kind === kind)!.id;
  for (let have = await walletPostings(svc, walletId); have < level; have += 2 * Math.min(SEED_BATCH / 2, Math.ceil((level - have) / 2))) {
    const journals = Math.min(SEED_BATCH / 2, Math.ceil((level - have) / 2));
    await db.none(seedPostings, { journals, available: id('available'), reserved: id('reserved'), currency: 'UGX' });
    process.stdout.write(`    ${have + 2 * journals} wallet postings\r`);
  }
  // the collections spread over the last 30 days, the newest a minute before now
  const until = new Date(Date.now() - 60_000).toISOString();
  const stepMs = Math.max(1, Math.floor((30 * 86_400_000) / Math.max(1, collections)));
  for (let have = await countCollections(db, { business_id: businessId }); have < collections; ) {
    const count = Math.min(SEED_BATCH, collections - have);
    const tag = `scale${level}_${have}_${randomBytes(2).toString('hex')}`;
    await db.none(seedCollections, { business_id: businessId, tag, count, step: `${stepMs} milliseconds`, until });
    await db.none(seedHistory, { business_id: businessId, tag, count, months: historyMonths, until });
    have += count;
    process.stdout.write(`    ${have} collections      \r`);
  }
  await db.none('ANALYZE');
}

export async function runScale(settings: ScaleSettings, out: string): Promise<void> {
  const began = performance.now();
  const work = mkdtempSync(path.join(os.tmpdir(), 'paycollect-bench-scale-'));
  const server = process.env.DATABASE_URL ? await freshServerDatabase(process.env.DATABASE_URL) : null;
  const operatorKey = 'op_bench_' + randomBytes(16).toString('hex');
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    DATA_DIR: work,
    DATABASE_URL: server?.url ?? '',
    OPERATOR_API_KEY: operatorKey,
    RATE_LIMIT_RPS: '0',
    SEED_DEMO: 'false',
    SANDBOX_MM_DELAY_MS: '3600000',
  });
  process.stdout.write(`PayCollect bench --scale on ${server ? 'real PostgreSQL' : 'embedded PostgreSQL (PGlite)'}, levels ${settings.levels.join(', ')}\n`);
  // no workers: nothing but the bench itself moves the data between measurements
  const svc = await startService({ config, log: createLogger(() => undefined, 'error'), workers: false });
  const levels: LevelFigures[] = [];
  // written after every level, so a run stopped during a long build keeps what it measured
  const writeReport = () => {
    const report = { date: new Date().toISOString(), machine: machine(server?.version ?? 'PGlite (embedded PostgreSQL, in the bench process)'), settings, targets: TARGETS, levels };
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  };
  try {
    const m = await setupMerchant(svc.url, operatorKey, 'http://127.0.0.1:9/bench-scale-webhook');
    const principal = { businessId: m.businessId, apiTokenId: m.apiTokenId };
    const { authorization } = m;
    const { id: walletId } = await svc.services.db.one<{ id: number }>("SELECT id FROM wallets WHERE business_id = $1 AND currency = 'UGX'", [m.businessId]);
    let made = 0;
    const complete = async () => {
      const ids = (await pendingCollections(svc.services, principal, 'UGX', settings.completions, () => rtpBody(`X${++made}`))).map((c) => c.id);
      return completeAll(svc.services, m.businessId, 'UGX', ids, 50, server?.url ?? null);
    };
    // the first completions create the wallet's ledger accounts that the built postings go to
    await complete();
    for (const level of settings.levels) {
      process.stdout.write(`  level ${level}: building\n`);
      const t0 = performance.now();
      await grow(svc, m.businessId, walletId, level, Math.min(level, settings.maxCollections), settings.historyMonths);
      const buildS = round1((performance.now() - t0) / 1000);
      process.stdout.write(`  level ${level}: built in ${buildS} s; measuring\n`);
      const balance = await timedGet(`${svc.url}/v1/data/wallets/UGX/balance`, authorization);
      const firstPage = await timedGet(`${svc.url}/v1/collections`, authorization);
      const filter = 'status=FAILED';
      const filtered = await timedGet(`${svc.url}/v1/collections?${filter}`, authorization);
      const balanceService = await timed(() => svc.services.ledger.walletBalance(m.businessId, 'UGX'));
      const firstPageService = await timed(() => svc.services.collections.list({ business_id: m.businessId }, { limit: 10, offset: 0, cursor: null }));
      const completions = await complete();
      const { history } = await svc.services.db.one<{ history: number }>(
        'SELECT (SELECT count(*) FROM notification_attempts) + (SELECT count(*) FROM emails) + (SELECT count(*) FROM audit_log) AS history',
      );
      const r0 = performance.now();
      const deleted = await svc.services.retention.prune();
      const retentionRun = { deleted, ms: round1(performance.now() - r0) };
      const figures: LevelFigures = {
        level,
        wallet_postings: await walletPostings(svc, walletId),
        collections: await countCollections(svc.services.db, { business_id: m.businessId }),
        build_s: buildS,
        balance_read: { p50_ms: balance.p50_ms, max_ms: balance.max_ms },
        balance_read_service: balanceService,
        first_page_service: firstPageService,
        first_page: firstPage,
        filtered_page: { ...filtered, filter },
        completions,
        history_rows: Number(history),
        retention_run: retentionRun,
      };
      levels.push(figures);
      process.stdout.write(`\n${scaleTable([figures])}\n\n`);
      writeReport();
    }
  } finally {
    await svc.close();
    await server?.drop();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`\n${scaleTable(levels)}\n\nFigures written to ${out} (${Math.round((performance.now() - began) / 1000)} s)\n`);
}

function scaleTable(levels: LevelFigures[]): string {
  const head = ['level', 'wallet postings', 'collections', 'built in', 'balance read (HTTP; service)', 'first page (HTTP, X-PH-Total; service)', 'filtered page (HTTP)', 'completions', 'history rows; one retention run'];
  const rows = levels.map((l) => [
    String(l.level),
    String(l.wallet_postings),
    String(l.collections),
    `${l.build_s} s`,
    `p50 ${l.balance_read.p50_ms} ms, max ${l.balance_read.max_ms} ms; ${l.balance_read_service.p50_ms} ms`,
    `p50 ${l.first_page.p50_ms} ms, max ${l.first_page.max_ms} ms (${l.first_page.total}); ${l.first_page_service.p50_ms} ms`,
    `${l.filtered_page.filter}: p50 ${l.filtered_page.p50_ms} ms (${l.filtered_page.total})`,
    `${l.completions.per_s}/s, ${l.completions.cpu_ms_per_completion.process_ms}${l.completions.cpu_ms_per_completion.postgres_ms === null ? '' : ` + ${l.completions.cpu_ms_per_completion.postgres_ms}`} ms CPU, ${l.completions.exact_balance ? 'exact' : 'WRONG'}`,
    `${l.history_rows}; ${l.retention_run.deleted} deleted in ${l.retention_run.ms} ms`,
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (c: string[]) => '| ' + c.map((v, i) => v.padEnd(w[i])).join(' | ') + ' |';
  return [
    line(head),
    '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|',
    ...rows.map(line),
    `targets: balance read <= ${TARGETS.balance_read_ms} ms, list pages <= ${TARGETS.list_page_ms} ms, completion cost flat across levels`,
  ].join('\n');
}
