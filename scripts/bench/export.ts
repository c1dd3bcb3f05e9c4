// `npm run bench -- --export`: a collections export of BENCH_EXPORT_ROWS (1 million) rows through
// GET /v1/exports/collections from a service in its own process, on a real PostgreSQL server
// (DATABASE_URL; the rows are built by SQL, seed-collections.sql). It prints the rows per second, the
// service's resident memory before and at its peak while streaming, and the bound that memory is held
// to: the file is read in keyset batches and written as the client takes it, so the peak must not grow
// with the rows. The bound is on the peak of its resident memory; that memory is also sampled at each
// tenth of the file, for the shape: V8 and the allocator keep freed memory until they need the room, so
// the resident memory rises and falls by tens of MB while the heap that survives a collection stays flat
// (measured in one process with --expose-gc: about 38 MB after every 50,000 rows of 300,000). Rows held
// would raise it without end. Before it, a run reads slowly (a pause after every chunk) for its first
// BENCH_EXPORT_SLOW_ROWS rows and hangs up: the service must wait for the client (backpressure) instead of
// reading ahead into memory. It reports; it never fails.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pgp } from '../../src/db';
import { freePort, ROOT, round1, rssMb, sampleRss, setting, sleep, startChild, stopChild, waitForHttp } from './lib';
import { freshServerDatabase, machine, setupMerchant } from './setup';

const seedCollections = new pgp.QueryFile(path.join(ROOT, 'scripts', 'bench', 'seed-collections.sql'), { minify: true, noWarnings: true });
/**
 * Rows built per statement (each its own transaction), one every SEED_STEP: spread over the year, so
 * that each day's row of collection_counts (kept by a trigger per row) is updated a few hundred times in
 * a statement rather than tens of thousands (each update of one row in a transaction lengthens its
 * chain of versions: the build became quadratic).
 */
const SEED_BATCH = 100_000;
const SEED_STEP = '30 seconds';
/** The bound on the service's resident memory while streaming, whatever the rows. */
export const EXPORT_BOUNDS = { peak_rss_mb: 320 };
const LF = 0x0a;

export interface ExportSettings {
  rows: number;
  slowRows: number;
}

export function exportSettings(env: NodeJS.ProcessEnv): ExportSettings {
  return { rows: setting(env, 'BENCH_EXPORT_ROWS', 1_000_000), slowRows: setting(env, 'BENCH_EXPORT_SLOW_ROWS', 100_000) };
}

interface ReadFigures {
  rows: number;
  bytes: number;
  seconds: number;
  peak_rss_mb: number | null;
  /** resident memory when each tenth of the expected rows had been read */
  rss_by_tenth_mb: (number | null)[];
}

/**
 * Reads the export, counting records by line ends (the seeded rows have no line break inside a field);
 * with `pauseMs`, waits that long after every chunk and stops after `maxRows`.
 */
async function readExport(url: string, authorization: string, pid: number, o: { pauseMs?: number; maxRows?: number; expected?: number } = {}): Promise<ReadFigures> {
  const abort = new AbortController();
  const sampler = sampleRss(pid, 50);
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization, accept: 'text/csv' }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  let lines = 0;
  let bytes = 0;
  const tenths: (number | null)[] = [];
  const tenth = o.expected ? Math.ceil(o.expected / 10) : Infinity;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (let i = value.indexOf(LF); i !== -1; i = value.indexOf(LF, i + 1)) lines++;
    while (lines - 1 >= (tenths.length + 1) * tenth) tenths.push(rssMb(pid));
    if (o.maxRows !== undefined && lines - 1 >= o.maxRows) {
      abort.abort();
      break;
    }
    if (o.pauseMs) await sleep(o.pauseMs);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { rows: lines - 1, bytes, seconds: round1(seconds), peak_rss_mb: sampler.stop(), rss_by_tenth_mb: tenths };
}

export async function runExport(settings: ExportSettings, out: string): Promise<void> {
  if (!process.env.DATABASE_URL) {
    process.stdout.write('bench --export needs DATABASE_URL (a real PostgreSQL server): the service runs in its own process, and its embedded database could not be built from here\n');
    return;
  }
  const server = await freshServerDatabase(process.env.DATABASE_URL);
  const work = mkdtempSync(path.join(os.tmpdir(), 'paycollect-bench-export-'));
  const port = await freePort();
  const operatorKey = 'op_bench_' + randomBytes(16).toString('hex');
  const env = {
    ...process.env, PORT: String(port), DATA_DIR: work, DATABASE_URL: server.url, OPERATOR_API_KEY: operatorKey,
    RATE_LIMIT_RPS: '0', SEED_DEMO: 'false', SANDBOX_MM_DELAY_MS: '3600000',
  };
  const child = startChild('service', process.execPath, ['--import', 'tsx', 'src/main.ts'], env, path.join(work, 'service.log'));
  const db = pgp({ connectionString: server.url, max: 1 });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`, child);
    process.stdout.write(`PayCollect bench --export on ${server.version}: ${settings.rows} collections\n`);
    const m = await setupMerchant(base, operatorKey, 'http://127.0.0.1:9/bench-export-webhook');
    const until = new Date(Date.now() - 60_000).toISOString();
    const t0 = performance.now();
    for (let have = 0; have < settings.rows; have += SEED_BATCH) {
      const count = Math.min(SEED_BATCH, settings.rows - have);
      const batchUntil = new Date(Date.parse(until) - have * 30_000).toISOString();
      await db.none(seedCollections, { business_id: m.businessId, tag: `export_${have}`, count, step: SEED_STEP, until: batchUntil });
      process.stdout.write(`  ${have + count} collections built\r`);
    }
    await db.none('ANALYZE collections');
    process.stdout.write(`\n  built in ${round1((performance.now() - t0) / 1000)} s\n`);
    const url = `${base}/v1/exports/collections`;
    // the code paths loaded and warm before the baseline is taken
    await readExport(`${url}?merchant_reference=export_0_1`, m.authorization, child.pid);
    const baseline = rssMb(child.pid);
    const slow = await readExport(url, m.authorization, child.pid, { pauseMs: 5, maxRows: settings.slowRows });
    const full = await readExport(url, m.authorization, child.pid, { expected: settings.rows });
    if (full.rows !== settings.rows) throw new Error(`the export had ${full.rows} rows, ${settings.rows} were built`);
    const report = {
      date: new Date().toISOString(),
      machine: machine(server.version),
      settings,
      bounds: EXPORT_BOUNDS,
      baseline_rss_mb: baseline,
      slow_reader: slow,
      full: { ...full, rows_per_s: Math.round(full.rows / full.seconds), mb_per_s: round1(full.bytes / 2 ** 20 / full.seconds) },
      within_bounds: Math.max(full.peak_rss_mb ?? Infinity, slow.peak_rss_mb ?? Infinity) <= EXPORT_BOUNDS.peak_rss_mb,
    };
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    process.stdout.write(
      [
        `| export of ${full.rows} collections | ${report.full.rows_per_s} rows/s, ${report.full.mb_per_s} MB/s, ${full.seconds} s, ${round1(full.bytes / 2 ** 20)} MB of CSV |`,
        `| service RSS before / peak while streaming | ${baseline} MB / ${full.peak_rss_mb} MB; bound: peak <= ${EXPORT_BOUNDS.peak_rss_mb} MB |`,
        `| service RSS at each tenth of the file | ${full.rss_by_tenth_mb.join(', ')} MB |`,
        `| slow reader (5 ms pause per chunk), first ${slow.rows} rows | peak ${slow.peak_rss_mb} MB in ${slow.seconds} s |`,
        `| within the bound | ${report.within_bounds ? 'yes' : 'NO'} |`,
        `Figures written to ${out}`,
      ].join('\n') + '\n',
    );
  } finally {
    await db.$pool.end();
    await stopChild(child);
    await server.drop();
    rmSync(work, { recursive: true, force: true });
  }
}
