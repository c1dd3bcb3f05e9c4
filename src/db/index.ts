// The database: a real PostgreSQL server when DATABASE_URL is set, else embedded PostgreSQL (PGlite)
// served over a private unix socket so the same pg-promise code talks to both.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pgPromise from 'pg-promise';
import type { IDatabase, ITask } from 'pg-promise';

export const pgp = pgPromise({ capSQL: true, noWarnings: true });
// BIGINT columns hold money in minor units: read them as bigint, never as a rounded JS number.
pgp.pg.types.setTypeParser(20, (v: string) => BigInt(v));

export type Db = IDatabase<object>;
export type Tx = ITask<object>;

export interface Database {
  db: Db;
  kind: 'embedded' | 'postgres';
  /** the embedded engine itself, when embedded */
  lite?: { dumpDataDir(compression: 'none'): Promise<Blob> };
  close(): Promise<void>;
}

/** A named statement from src/services/sql/ (pg-promise QueryFile: read once, minified, named parameters). */
export function sqlFile(name: string): pgPromise.QueryFile {
  const file = new pgp.QueryFile(path.join(__dirname, '..', 'services', 'sql', name), { minify: true });
  if (file.error) throw file.error;
  return file;
}

const POOL_MAX = 10;
const EMBEDDED_SHARED_BUFFERS = '16MB';

export async function openPostgres(url: string, poolMax = POOL_MAX): Promise<Database> {
  const db = pgp({ connectionString: url, max: poolMax, allowExitOnIdle: true });
  await db.one('SELECT 1 AS ok');
  return { db, kind: 'postgres', close: () => db.$pool.end() };
}

/**
 * PGlite is one database session shared by every socket connection, so the pool is kept at one
 * connection (STACK-NOTES: a second connection hangs while a transaction is open).
 * dataDir undefined = in memory (tests); a template (PGlite's dumpDataDir) skips initdb.
 */
export async function openEmbedded(dataDir: string | undefined, template?: Blob): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  // PostgreSQL's 128 MB of shared buffers live in the service's own memory here; a sandbox's data fits
  // in far less, and the files stay in the OS page cache.
  const lite = new PGlite(dataDir, { postgresqlconf: [`shared_buffers = ${EMBEDDED_SHARED_BUFFERS}`], ...(template ? { loadDataDir: template } : {}) });
  await lite.waitReady;
  const sockDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-pg-'));
  const server = new PGLiteSocketServer({ db: lite, path: path.join(sockDir, '.s.PGSQL.5432'), maxConnections: 4 });
  await server.start();
  const db = pgp({ host: sockDir, port: 5432, user: 'postgres', database: 'postgres', max: 1, allowExitOnIdle: true });
  await db.one('SELECT 1 AS ok');
  return {
    db,
    kind: 'embedded',
    lite,
    close: async () => {
      await db.$pool.end();
      await server.stop();
      await lite.close();
      rmSync(sockDir, { recursive: true, force: true });
    },
  };
}

/** A tarball of a fresh embedded database, for openEmbedded(dir, template). */
export async function dumpEmbedded(database: Database): Promise<Blob> {
  if (!database.lite) throw new Error('not an embedded database');
  return database.lite.dumpDataDir('none');
}

export function openDatabase(databaseUrl: string | null, dataDir: string, poolMax = POOL_MAX): Promise<Database> {
  return databaseUrl ? openPostgres(databaseUrl, poolMax) : openEmbedded(path.join(dataDir, 'pg'));
}

