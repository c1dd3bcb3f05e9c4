// A snapshot of every table the service owns, to prove that a refused request changed nothing.
import type { Db } from '../../src/db';

/** Written on a timer by every running process, whatever the requests (heartbeats). */
const HOUSEKEEPING = new Set(['worker_processes']);

/** Every row of every table in the public schema but housekeeping, rows sorted by their JSON text. */
export async function databaseState(db: Db): Promise<Record<string, string[]>> {
  const tables = await db.map<string>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [],
    (r: { table_name: string }) => r.table_name,
  );
  const out: Record<string, string[]> = {};
  for (const table of tables.filter((t) => !HOUSEKEEPING.has(t))) {
    const rows = await db.any('SELECT * FROM $1:name', [table]);
    out[table] = rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();
  }
  return out;
}

/**
 * Waits until the service's outboxes are still (every webhook delivered or given up, every e-mail sent or
 * given up), so that a snapshot taken next is not raced by a worker finishing what a change before it queued.
 */
export async function outboxesStill(db: Db, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { n } = await db.one<{ n: number }>(
      `SELECT (SELECT count(*) FROM notifications WHERE delivered_at IS NULL AND gave_up_at IS NULL)
            + (SELECT count(*) FROM emails WHERE sent_at IS NULL AND gave_up_at IS NULL) AS n`,
    );
    if (Number(n) === 0) return;
    if (Date.now() > deadline) throw new Error(`outboxes not still after ${timeoutMs} ms: ${n} webhooks or e-mails still to go`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
