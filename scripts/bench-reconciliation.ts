// `npx tsx scripts/bench-reconciliation.ts`: times the intake and matching of one M-Pesa organisation
// statement of BENCH_RECON_ROWS rows (100,000 by default; the target is under a minute) and of the same file
// again (idempotent: nothing is created), with the process's peak RSS while the file streams in. The file
// is generated as it is read, never held whole; its payments are of completed collections the script seeds
// first in one statement each (a collection and its processor request with the line's receipt), so every
// line is found and compared, and decided matched. Real PostgreSQL when DATABASE_URL is set (a fresh
// database on that server, dropped after), else embedded PostgreSQL in a temporary directory. It reports;
// it never fails on speed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pgPromise from 'pg-promise';
import { openDatabase } from '../src/db';
import { migrate } from '../src/db/migrate';
import { createLogger } from '../src/log';
import { StatementIntake } from '../src/reconciliation/intake';
import type { Base } from '../src/base';
import { loadConfig } from '../src/config';

const ROWS = Number(process.env.BENCH_RECON_ROWS ?? 100_000);
const HEADER = 'Receipt No.,Completion Time,Initiation Time,Details,Transaction Status,Paid In,Withdrawn,Balance,Balance Confirmed,Reason Type,Other Party Info,Linked Transaction ID,A/C No.\r\n';

/** The statement, 1,000 rows a chunk, each a payment with its charge row. */
async function* statement(seed: string): AsyncGenerator<string> {
  yield '\ufeffOrganization Name,Bench Till\r\nShort Code,174379\r\n\r\n' + HEADER;
  for (let i = 0; i < ROWS; i += 1_000) {
    let chunk = '';
    for (let k = i; k < Math.min(ROWS, i + 1_000); k += 2) {
      const at = new Date(START + k * 500).toISOString().replace('T', ' ').slice(0, 19);
      const receipt = `B${seed}${String(k).padStart(8, '0')}`;
      chunk += `${receipt},${at},${at},Pay Bill Online,Completed,"1,500.00",,"1,000,000.00",true,Pay Bill Online,254708374149 - JANE DOE,,ORD${k}\r\n`;
      chunk += `C${seed}${String(k).padStart(8, '0')},${at},${at},Pay Bill Online Charge,Completed,,-7.50,"999,992.50",true,Pay Bill Online Charge,,${receipt},\r\n`;
    }
    yield chunk;
  }
}

const START = Date.UTC(2026, 10, 30, 3, 0, 0);

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

async function main(): Promise<void> {
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
    const seeding = performance.now();
    await database.db.none(SEED_SQL, [business.id, mid.id, ROWS, seed, new Date(START)]);
    process.stdout.write(`seeded ${Math.ceil(ROWS / 2)} completed collections in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    const config = loadConfig();
    const base = { config, db: database.db, log: createLogger(), now: () => new Date(), kick: () => undefined } as unknown as Base;
    const intake = new StatementIntake(base);
    for (const round of ['first', 'again']) {
      const started = performance.now();
      const done = await intake.upload(mid.id, statement(seed), 'bench');
      const seconds = (performance.now() - started) / 1000;
      const items = await database.db.one<{ n: number; matched: number }>("SELECT count(*)::int AS n, (count(*) FILTER (WHERE state = 'matched'))::int AS matched FROM reconciliation_items");
      process.stdout.write(`${round}: ${ROWS} rows (${done.statement.line_count} lines) in ${seconds.toFixed(1)} s, created ${done.created}, items ${items.n} (matched ${items.matched}), peak RSS ${(peak / 1048576).toFixed(0)} MiB\n`);
    }
  } finally {
    clearInterval(sampler);
    await database.close();
    if (server) await server.none('DROP DATABASE IF EXISTS $1:name', [name]);
    pgp.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench-reconciliation: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
