// Numbered SQL migrations (src/db/migrations/NNNN_what_it_does.sql), applied in order at start-up
// under an advisory lock so that several processes starting together apply each one once.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from './index';

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');
const LOCK_KEY = 4_242_001;

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

export async function migrate(db: Db): Promise<string[]> {
  return db.task('migrate', async (t) => {
    await t.any('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      await t.none(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const done = new Set((await t.any<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version));
      const applied: string[] = [];
      for (const file of migrationFiles()) {
        if (done.has(file)) continue;
        const sql = readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
        await t.tx(async (tx) => {
          await tx.none(sql);
          await tx.none('INSERT INTO schema_migrations(version) VALUES ($1)', [file]);
        });
        applied.push(file);
      }
      return applied;
    } finally {
      await t.any('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  });
}

/**
 * Whether every migration this build knows is applied (a process of a newer build started on an older
 * database is not ready), answered within timeoutMs: 'unreachable' when the database does not answer.
 */
export async function migrationsApplied(db: Db, timeoutMs: number): Promise<'ok' | 'missing' | 'unreachable' | 'read-only'> {
  const files = migrationFiles();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'unreachable'>((resolve) => {
    timer = setTimeout(() => resolve('unreachable'), timeoutMs);
  });
  // a server in recovery (a standby, or a demoted primary a proxy still points at) refuses every write
  const asked = db
    .one<{ n: number; standby: boolean }>('SELECT count(*)::int AS n, pg_is_in_recovery() AS standby FROM schema_migrations WHERE version = ANY($1)', [files])
    .then((r): 'ok' | 'missing' | 'read-only' => (r.standby ? 'read-only' : r.n === files.length ? 'ok' : 'missing'))
    .catch((): 'unreachable' => 'unreachable');
  try {
    return await Promise.race([asked, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
