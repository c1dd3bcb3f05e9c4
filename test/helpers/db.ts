// A fresh database per test file: a new database on the real server when TEST_DATABASE_URL is set,
// else an in-memory embedded PostgreSQL (PGlite).
import { randomBytes } from 'node:crypto';
import { openEmbedded, openPostgres, pgp } from '../../src/db';
import type { Database } from '../../src/db';

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

export async function freshDatabase(): Promise<Database> {
  if (!REAL_PG_URL) return openEmbedded(undefined);
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
