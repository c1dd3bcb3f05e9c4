// A fresh database per test file: a new database on the real server when TEST_DATABASE_URL is set (a copy of
// a migrated template), else an in-memory embedded PostgreSQL (PGlite, loaded from a migrated dump).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IBaseProtocol } from 'pg-promise';
import { dumpEmbedded, openEmbedded, openPostgres, pgp } from '../../src/db';
import type { Database } from '../../src/db';
import { migrate, migrationFiles } from '../../src/db/migrate';

export const REAL_PG_URL = process.env.TEST_DATABASE_URL ?? null;

/** The real server, whether or not this run targets it (tests of concurrency across processes). */
export const SHARED_PG_URL = process.env.TEST_DATABASE_URL ?? process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A new, empty database on the real server; a copy of database `template` when given. */
export async function createRealDatabase(serverUrl: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = pgp({ connectionString: serverUrl, max: 1 });
  await admin.none(template ? 'CREATE DATABASE $1:name TEMPLATE $2:name' : 'CREATE DATABASE $1:name', [name, template]);
  await admin.$pool.end();
  return {
    url: databaseUrl(serverUrl, name),
    drop: async () => {
      const a = pgp({ connectionString: serverUrl, max: 1 });
      await sessionsGone(a, name);
      await a.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
      await a.$pool.end();
    },
  };
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = '/' + name;
  return url.toString();
}

/**
 * pool.end() resolves before its sockets close: dropping (FORCE) or renaming a database at once would find them
 * there (FORCE would kill them mid-close and their clients would raise an unhandled error), so wait for them.
 */
async function sessionsGone(a: IBaseProtocol<unknown>, name: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const { n } = await a.one('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The SHA-256 of the migrations (names and contents), in 16 hex digits: a migrated template is made once per set. */
function migrationsDigest(): string {
  const dir = path.resolve(__dirname, '..', '..', 'src', 'db', 'migrations');
  const digest = createHash('sha256');
  for (const f of migrationFiles()) digest.update(f).update(readFileSync(path.join(dir, f)));
  return digest.digest('hex').slice(0, 16);
}

/**
 * Migrating a new database on the real server takes about two seconds of a test file's setup; copying a migrated
 * one (CREATE DATABASE ... TEMPLATE) a fraction of that. The template of this set of migrations is made once on
 * the server, by whichever test worker asks first (the others wait on an advisory lock), built under a name of
 * its own and renamed when whole, and kept for later runs.
 */
async function realTemplate(serverUrl: string): Promise<string> {
  const name = `pc_template_${migrationsDigest()}`;
  const admin = pgp({ connectionString: serverUrl, max: 1 });
  const c = await admin.connect();
  try {
    await c.one('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      if (!(await c.oneOrNone('SELECT 1 FROM pg_database WHERE datname = $1', [name]))) {
        const building = `${name}_${process.pid}`;
        await c.none('DROP DATABASE IF EXISTS $1:name', [building]);
        await c.none('CREATE DATABASE $1:name', [building]);
        const database = await openPostgres(databaseUrl(serverUrl, building));
        await migrate(database.db);
        await database.close();
        await sessionsGone(c, building);
        await c.none('ALTER DATABASE $1:name RENAME TO $2:name', [building, name]);
      }
    } finally {
      await c.one('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    c.done();
    await admin.$pool.end();
  }
  return name;
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
  const file = path.join(os.tmpdir(), `paycollect-pglite-${migrationsDigest()}.tar`);
  if (!existsSync(file)) {
    const database = await openEmbedded(undefined);
    await migrate(database.db);
    const blob = await dumpEmbedded(database);
    await database.close();
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    renameSync(partial, file);
  }
  return new TarBytes(readFileSync(file));
}

/**
 * The template's bytes as a Blob whose arrayBuffer() hands them over as read: a Blob made of them copies the
 * 44 MB through Node's chunked blob reader first, half a second of every embedded test file's start (measured).
 * PGlite reads a loadDataDir template through arrayBuffer() and its type alone.
 */
class TarBytes extends Blob {
  constructor(private readonly tar: Buffer) {
    super([], { type: 'application/x-tar' });
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.tar;
    // a file this size is read into a buffer of its own: no copy is needed
    return (byteOffset === 0 && byteLength === buffer.byteLength ? buffer : buffer.slice(byteOffset, byteOffset + byteLength)) as ArrayBuffer;
  }
}

/** `empty`: no migrations applied (for tests of the migrations themselves). */
export async function freshDatabase(o: { empty?: boolean } = {}): Promise<Database> {
  if (!REAL_PG_URL) return o.empty ? openEmbedded(undefined) : openEmbedded(undefined, await embeddedTemplate());
  return freshRealDatabase(REAL_PG_URL, o);
}

/** A new database on the real server `serverUrl`: a copy of the migrated template, or `empty`. */
export async function freshRealDatabase(serverUrl: string, o: { empty?: boolean } = {}): Promise<Database> {
  const created = await createRealDatabase(serverUrl, o.empty ? undefined : await realTemplate(serverUrl));
  const database = await openPostgres(created.url);
  return {
    ...database,
    close: async () => {
      await database.close();
      await created.drop();
    },
  };
}
