// A fresh database per test file: a new database on the real server when TEST_DATABASE_URL is set,
// else an in-memory embedded PostgreSQL (PGlite).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dumpEmbedded, openEmbedded, openPostgres, pgp } from '../../src/db';
import type { Database } from '../../src/db';
import { migrate, migrationFiles } from '../../src/db/migrate';

export const REAL_PG_URL = process.env.TEST_DATABASE_URL ?? null;

/** The real server, whether or not this run targets it (tests of concurrency across processes). */
export const SHARED_PG_URL = process.env.TEST_DATABASE_URL ?? process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function createRealDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = pgp({ connectionString: serverUrl, max: 1 });
  await admin.none('CREATE DATABASE $1:name', [name]);
  await admin.$pool.end();
  const url = new URL(serverUrl);
  url.pathname = '/' + name;
  return {
    url: url.toString(),
    drop: async () => {
      const a = pgp({ connectionString: serverUrl, max: 1 });
      // pool.end() resolves before its sockets close: FORCE would kill them mid-close and their
      // clients would raise an unhandled error, so wait for the sessions to go first.
      for (let i = 0; i < 50; i++) {
        const { n } = await a.one('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (n === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await a.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
      await a.$pool.end();
    },
  };
}

export async function realServerReachable(serverUrl = SHARED_PG_URL): Promise<boolean> {
  const probe = pgp({ connectionString: serverUrl, max: 1, connectionTimeoutMillis: 2000 });
  try {
    await probe.one('SELECT 1 AS ok');
    return true;
  } catch {
    return false;
  } finally {
    await probe.$pool.end();
  }
}

/**
 * initdb of an embedded database takes seconds; a migrated one is made once per set of migrations
 * and every test file loads a copy of it (about a second).
 */
async function embeddedTemplate(): Promise<Blob> {
  const dir = path.resolve(__dirname, '..', '..', 'src', 'db', 'migrations');
  const digest = createHash('sha256');
  for (const f of migrationFiles()) digest.update(f).update(readFileSync(path.join(dir, f)));
  const file = path.join(os.tmpdir(), `paycollect-pglite-${digest.digest('hex').slice(0, 16)}.tar`);
  if (!existsSync(file)) {
    const database = await openEmbedded(undefined);
    await migrate(database.db);
    const blob = await dumpEmbedded(database);
    await database.close();
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    renameSync(partial, file);
  }
  return new Blob([readFileSync(file)]);
}

/** `empty`: no migrations applied (for tests of the migrations themselves). */
export async function freshDatabase(o: { empty?: boolean } = {}): Promise<Database> {
  if (!REAL_PG_URL) return o.empty ? openEmbedded(undefined) : openEmbedded(undefined, await embeddedTemplate());
  const created = await createRealDatabase(REAL_PG_URL);
  const database = await openPostgres(created.url);
  return {
    ...database,
    close: async () => {
      await database.close();
      await created.drop();
    },
  };
}
