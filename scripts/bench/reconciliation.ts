// `npm run bench -- --reconciliation`: times the intake and matching of one M-Pesa organisation statement of
// BENCH_RECON_ROWS rows (100,000 by default; the target is under a minute) and of the same file again
// (idempotent: nothing is created), and shows that memory stays bounded while the file streams in: the
// process's live heap (after a full collection) and resident set at each tenth of the rows read. The file is generated as it is read, never held
// whole; its payments are of completed collections seeded first in one statement (a collection and its
// processor request with the line's receipt), so every line is found and compared, and decided matched. Real
// PostgreSQL when DATABASE_URL is set (a fresh database on that server, dropped after), else embedded
// PostgreSQL in a temporary directory, inside this process (its memory counts then). It reports; it never
// fails on speed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import pgPromise from 'pg-promise';
import { openDatabase } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { createLogger } from '../../src/log';
import { StatementIntake } from '../../src/reconciliation/intake';
import type { Base } from '../../src/base';
import { loadConfig } from '../../src/config';
import { round1, setting } from './lib';

export interface ReconciliationFigures {
  rows: number;
  lines: number;
  seconds: number;
  matched: number;
  /** the same file again: nothing created */
  again_seconds: number;
  again_created: boolean;
  items_after_again: number;
  /** the resident set when the intake started, at its peak, and at each tenth of the rows read */
  rss_start_mb: number;
  peak_rss_mb: number;
  rss_by_tenth_mb: number[];
  /** what the process holds (its heap after a full collection) when the intake started and at each tenth of the rows read */
  live_heap_start_mb: number;
  live_heap_by_tenth_mb: number[];
  database: 'postgres' | 'embedded';
}

const HEADER = 'Receipt No.,Completion Time,Initiation Time,Details,Transaction Status,Paid In,Withdrawn,Balance,Balance Confirmed,Reason Type,Other Party Info,Linked Transaction ID,A/C No.\r\n';
const START = Date.UTC(2026, 10, 30, 3, 0, 0);
const rssMb = () => round1(process.memoryUsage().rss / 1048576);
// A resident set also holds garbage V8 has not collected yet, so what the intake keeps is read after a full
// collection: the collector is reached through V8's own flag, set for this process only and only when this
// bench runs (importing the module leaves the process's flags alone).
function liveHeapReader(): () => number {
  v8.setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  return () => {
    collect();
    return round1(process.memoryUsage().heapUsed / 1048576);
  };
}

/** The statement, 1,000 rows a chunk, each a payment with its charge row; `tenth` is called as each tenth of the rows is passed. */
async function* statement(rows: number, seed: string, tenth: (i: number) => void): AsyncGenerator<string> {
  yield '\ufeffOrganization Name,Bench Till\r\nShort Code,174379\r\n\r\n' + HEADER;
  let next = 1;
  for (let i = 0; i < rows; i += 1_000) {
    let chunk = '';
    for (let k = i; k < Math.min(rows, i + 1_000); k += 2) {
      const at = new Date(START + k * 500).toISOString().replace('T', ' ').slice(0, 19);
      const receipt = `B${seed}${String(k).padStart(8, '0')}`;
      chunk += `${receipt},${at},${at},Pay Bill Online,Completed,"1,500.00",,"1,000,000.00",true,Pay Bill Online,254708374149 - JANE DOE,,ORD${k}\r\n`;
      chunk += `C${seed}${String(k).padStart(8, '0')},${at},${at},Pay Bill Online Charge,Completed,,-7.50,"999,992.50",true,Pay Bill Online Charge,,${receipt},\r\n`;
    }
    yield chunk;
    while (next <= 10 && i + 1_000 >= (rows * next) / 10) tenth(next++);
  }
}

/** The completed collections of the statement's payments (every even row), made when the lines are, with the processor's receipt. */
const SEED_SQL = `WITH c AS (
  INSERT INTO collections (business_id, mid_id, gateway_reference, merchant_reference, request_hash, payment_method, status, message,
    request_amount_minor, request_currency, account_amount_minor, account_currency, fee_minor, total_credit_minor, customer_charged,
    narration, expires_at, created_at, updated_at)
  SELECT $1, $2, 'BENCH-' || k, 'ORD' || k, 'hash', 'MOBILE_MONEY', 'COMPLETED', 'Paid', 150000, 'KES', 150000, 'KES', 0, 150000, false,
    'bench', $5::timestamptz + k * interval '500 milliseconds', $5::timestamptz + k * interval '500 milliseconds', $5::timestamptz + k * interval '500 milliseconds'
  FROM generate_series(0, $3 - 1, 2) AS k
  RETURNING id, merchant_reference
)
INSERT INTO processor_requests (collection_id, mid_id, service_type, reference, callback_token, amount_minor, currency, state, receipt)
SELECT c.id, $2, 'mpesa', 'ref-' || c.merchant_reference, 'tok-' || c.merchant_reference, 150000, 'KES', 'settled',
  'B' || $4 || lpad(substr(c.merchant_reference, 4), 8, '0')
FROM c`;

export async function runReconciliation(out: string): Promise<ReconciliationFigures> {
  const liveHeapMb = liveHeapReader();
  const rows = setting(process.env, 'BENCH_RECON_ROWS', 100_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-recon-'));
  const admin = process.env.DATABASE_URL;
  const name = `bench_recon_${randomBytes(4).toString('hex')}`;
  const pgp = pgPromise();
  const server = admin ? pgp(admin) : null;
  if (server) await server.none('CREATE DATABASE $1:name', [name]);
  const url = admin ? admin.replace(/\/[^/]*$/, `/${name}`) : null;
  const database = await openDatabase(url, dir, 4);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    await migrate(database.db);
    const business = await database.db.one<{ id: number }>("INSERT INTO businesses (name, default_currency) VALUES ('Bench', 'KES') RETURNING id");
    const mid = await database.db.one<{ id: number }>(
      "INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Bench', 'mpesa', 'MOBILE_MONEY', 'KES') RETURNING id",
      [business.id],
    );
    const seed = randomBytes(2).toString('hex').toUpperCase();
    process.stdout.write(`PayCollect bench --reconciliation on ${admin ? 'the PostgreSQL server' : 'embedded PostgreSQL'}: ${rows} rows\n`);
    const seeding = performance.now();
    await database.db.none(SEED_SQL, [business.id, mid.id, rows, seed, new Date(START)]);
    await database.db.none('ANALYZE');
    process.stdout.write(`  seeded ${Math.ceil(rows / 2)} completed collections in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    const base = { config: loadConfig(), db: database.db, log: createLogger(), now: () => new Date(), kick: () => undefined } as unknown as Base;
    const intake = new StatementIntake(base);
    const itemCounts = () => database.db.one<{ n: number; matched: number }>("SELECT count(*)::int AS n, (count(*) FILTER (WHERE state = 'matched'))::int AS matched FROM reconciliation_items");

    const tenths: number[] = [];
    const liveTenths: number[] = [];
    const liveStart = liveHeapMb();
    const rssStart = rssMb();
    peak = process.memoryUsage().rss;
    let started = performance.now();
    const first = await intake.upload(mid.id, statement(rows, seed, () => {
      tenths.push(rssMb());
      liveTenths.push(liveHeapMb());
    }), 'bench');
    const seconds = (performance.now() - started) / 1000;
    const peakMb = round1(peak / 1048576);
    const items = await itemCounts();
    process.stdout.write(`  first: ${rows} rows (${first.statement.line_count} lines) in ${seconds.toFixed(1)} s, items ${items.n} (matched ${items.matched})\n`);

    started = performance.now();
    const again = await intake.upload(mid.id, statement(rows, seed, () => undefined), 'bench');
    const againSeconds = (performance.now() - started) / 1000;
    const after = await itemCounts();
    process.stdout.write(`  again: in ${againSeconds.toFixed(1)} s, created ${again.created}, items ${after.n}\n`);
    process.stdout.write(`  RSS at the start ${rssStart} MB, at each tenth of the rows ${tenths.join(', ')} MB, peak ${peakMb} MB\n`);
    process.stdout.write(`  live heap at the start ${liveStart} MB, at each tenth of the rows ${liveTenths.join(', ')} MB\n`);
    const figures: ReconciliationFigures = {
      rows, lines: first.statement.line_count, seconds: round1(seconds), matched: items.matched,
      again_seconds: round1(againSeconds), again_created: again.created, items_after_again: after.n,
      rss_start_mb: rssStart, peak_rss_mb: peakMb, rss_by_tenth_mb: tenths, live_heap_start_mb: liveStart, live_heap_by_tenth_mb: liveTenths, database: admin ? 'postgres' : 'embedded',
    };
    writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), reconciliation: figures }, null, 2) + '\n');
    return figures;
  } finally {
    clearInterval(sampler);
    await database.close();
    if (server) await server.none('DROP DATABASE IF EXISTS $1:name', [name]);
    pgp.end();
    rmSync(dir, { recursive: true, force: true });
  }
}
