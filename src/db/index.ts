// The database: a real PostgreSQL server when DATABASE_URL is set, else embedded PostgreSQL (PGlite)
// served over a private unix socket so the same pg-promise code talks to both.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pgPromise from 'pg-promise';
import type { IBaseProtocol, IDatabase, ITask } from 'pg-promise';
import { dbEvents } from '../telemetry/db';
import type { DbObserved } from '../telemetry/db';
import { noteStatement } from './outcome';

/**
 * A connection whose write a read-only server refused (SQLSTATE 25006) reached a demoted standby or
 * one not yet promoted, through a proxy that still pointed there when it connected: it is discarded
 * on release instead of going back to the pool, so the next statement connects again (to the primary).
 */
function discardReadOnly(err: unknown, e: { client?: object }): void {
  if ((err as { code?: unknown } | null)?.code === '25006' && e.client) (e.client as { $connectionError?: unknown }).$connectionError = err;
}

/** pg-promise takes one handler per event: each statement is counted for the outcome of its request and timed. */
export const pgp = pgPromise({
  capSQL: true,
  noWarnings: true,
  query: (e) => {
    noteStatement(e);
    dbEvents.query(e);
  },
  receive: dbEvents.receive,
  error: (err, e) => {
    discardReadOnly(err, e);
    dbEvents.error(err, e);
  },
});
// BIGINT columns hold money in minor units: read them as bigint, never as a rounded JS number.
pgp.pg.types.setTypeParser(20, (v: string) => BigInt(v));

export type Db = IDatabase<object>;
export type Tx = ITask<object>;
/** A connection to query with: a transaction or task, or the database itself (each statement on its own). */
export type Queryable = IBaseProtocol<object>;

export interface Database {
  db: Db;
  kind: 'embedded' | 'postgres';
  /** the embedded engine itself, when embedded */
  lite?: { dumpDataDir(compression: 'none'): Promise<Blob> };
  close(): Promise<void>;
}

/** Statement files read so far, by path: two flows of a wing that run one statement share its one QueryFile. */
const readSqlFiles = new Map<string, pgPromise.QueryFile>();

/** A statement file's name in camel case, as `sqlFiles` keys it: `lock-wallet` is `lockWallet`. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/**
 * The statements a file runs, from its wing's sql/ folder (`names` without `.sql`), each as `sqlFile`
 * reads it, under its name in camel case: `sqlFiles(__dirname, ['lock-wallet']).lockWallet`.
 */
export function sqlFiles<N extends string>(dir: string, names: readonly N[]): { readonly [K in N as CamelCase<K>]: pgPromise.QueryFile } {
  const camel = (n: string) => n.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  return Object.fromEntries(names.map((n) => [camel(n), sqlFile(dir, `${n}.sql`)])) as { readonly [K in N as CamelCase<K>]: pgPromise.QueryFile };
}

/**
 * A named statement kept beside the code that runs it: `dir` is the caller's folder (its `__dirname`),
 * `name` a file in its sql/ folder (pg-promise QueryFile: read once, minified, named parameters).
 */
export function sqlFile(dir: string, name: string): pgPromise.QueryFile {
  const at = path.join(dir, 'sql', name);
  const known = readSqlFiles.get(at);
  if (known) return known;
  const file = new pgp.QueryFile(at, { minify: true });
  if (file.error) throw file.error;
  readSqlFiles.set(at, file);
  return file;
}

/**
 * The contexts ($dc) of databases opened by openEmbedded: their one session is shared by reconnecting
 * clients. Kept by context, which a task or transaction carries too (t.ctx.dc), so a statement run in the
 * caller's transaction knows its database.
 */
const embeddedContexts = new WeakSet<object>();

/** Whether `q` (a database, or a task or transaction on one) is an embedded database. */
function isEmbedded(q: Queryable): boolean {
  const dc = (q as { $dc?: unknown }).$dc ?? (q as { ctx?: { dc?: unknown } }).ctx?.dc;
  return typeof dc === 'object' && dc !== null && embeddedContexts.has(dc);
}

/**
 * A hot statement of constant text. On a real server: a named (prepared) statement, parsed and planned
 * once per connection, then only bound and run. On the embedded database an unnamed one: its one session is
 * shared by every client that connects, so a name prepared by one client would clash with the next's.
 */
export function statement(db: Queryable, name: string, text: string, values: unknown[]): pgPromise.PreparedStatement | pgPromise.ParameterizedQuery {
  return isEmbedded(db) ? new pgp.ParameterizedQuery({ text, values }) : new pgp.PreparedStatement({ name, text, values });
}

/**
 * A hot statement kept in a wing's sql/ folder with named parameters (`${name}`), turned once, at load, into
 * one constant text with positional parameters so a real server can prepare it: `params` are the names in
 * the order of `$1`, `$2`... The name of the prepared statement is the wing and the file.
 */
export interface HotStatement {
  readonly name: string;
  readonly text: string;
  readonly params: readonly string[];
}

/** A statement file's minified text as read, without formatting (QueryFile's documented symbol, absent from its types). */
export function sqlPart(dir: string, file: string): string {
  const query = (pgp.QueryFile as unknown as { $query: symbol }).$query;
  return (sqlFile(dir, file) as unknown as Record<symbol, string>)[query];
}

/**
 * `parts`: the text (sqlPart) of what `${@name}` stands for in the file, written by the wing that owns the
 * table it writes (the ledger's credit, the notifications' outbox rows), so that one statement of constant
 * text writes several wings' tables, each wing's SQL kept in its own sql/ folder.
 */
export function hotSqlFile(dir: string, file: string, parts: Readonly<Record<string, string>> = {}): HotStatement {
  const named = sqlPart(dir, file).replace(/\$\{@(\w+)\}/g, (_, part: string) => {
    if (parts[part] === undefined) throw new Error(`${file} includes \${@${part}}, which it was not given`);
    return parts[part];
  });
  const params: string[] = [];
  const text = named.replace(/\$\{(\w+)\}/g, (_, param: string) => {
    if (!params.includes(param)) params.push(param);
    return `$${params.indexOf(param) + 1}`;
  });
  return { name: `${path.basename(dir)}/${file}`, text, params };
}

/**
 * A HotStatement bound to its values by name (every name given, none unknown: a missing value would
 * silently write NULL), run as statement() runs it. Values go to the driver as they are: JSON columns
 * take text (JSON.stringify), arrays become PostgreSQL arrays.
 */
export function bound(db: Queryable, s: HotStatement, values: Readonly<Record<string, unknown>>): pgPromise.PreparedStatement | pgPromise.ParameterizedQuery {
  const unknown = Object.keys(values).filter((k) => !s.params.includes(k));
  const missing = s.params.filter((p) => !(p in values));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(`${s.name}: missing ${missing.join(', ') || 'none'}; unknown ${unknown.join(', ') || 'none'}`);
  }
  return statement(db, s.name, s.text, s.params.map((p) => values[p]));
}

const POOL_MAX = 10;

/** A pool's own context: the service that uses it plugs its telemetry in here (src/telemetry/db.ts). */
const observed = (): DbObserved => ({ figures: null });

/** Where the service that uses `db` plugs in its telemetry (every pool opened here has one). */
export function observedOf(db: Db): DbObserved {
  return db.$dc as DbObserved;
}
const EMBEDDED_SHARED_BUFFERS = '16MB';

export async function openPostgres(url: string, poolMax = POOL_MAX): Promise<Database> {
  const db = pgp({ connectionString: url, max: poolMax, allowExitOnIdle: true }, observed());
  await db.one('SELECT 1 AS ok');
  return { db, kind: 'postgres', close: () => db.$pool.end() };
}

/**
 * PGlite is one database session shared by every socket connection, so the pool is kept at one
 * connection (docs/embedded-database.md: a second connection hangs while a transaction is open).
 * dataDir undefined = in memory (tests); a template (PGlite's dumpDataDir) skips initdb.
 */
export async function openEmbedded(dataDir: string | undefined, template?: Blob): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  // PostgreSQL's 128 MB of shared buffers live in the service's own memory here; a sandbox's data fits
  // in far less, and the files stay in the OS page cache.
  // in memory as PGlite's `memory://`: with no data directory at all PGlite ignores loadDataDir and starts empty
  const lite = new PGlite(dataDir ?? 'memory://', { postgresqlconf: [`shared_buffers = ${EMBEDDED_SHARED_BUFFERS}`], ...(template ? { loadDataDir: template } : {}) });
  await lite.waitReady;
  const sockDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-pg-'));
  const server = new PGLiteSocketServer({ db: lite, path: path.join(sockDir, '.s.PGSQL.5432'), maxConnections: 4 });
  await server.start();
  const db = pgp({ host: sockDir, port: 5432, user: 'postgres', database: 'postgres', max: 1, allowExitOnIdle: true }, observed());
  embeddedContexts.add(db.$dc as object);
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

// SQLSTATE classes and codes that mean the server went away or refuses sessions for now, not that the
// statement was wrong: 08 connection exception, 57P01-57P03 shutdown / cannot connect now, 53300 too many
// connections, 25006 a write on a read-only server (a primary being demoted, a standby not yet promoted).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300|25006)$/;
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGE = /Connection terminated|connection error and is not queryable|Client was closed/i;

/** True when an error says the database is unreachable (our outage), as opposed to a bad statement. */
export function isDatabaseUnavailable(err: unknown): boolean {
  // read by shape, not instanceof: socket errors may come from another realm's Error (e.g. under jest)
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code))) return true;
  if (Array.isArray(errors) && errors.some(isDatabaseUnavailable)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}

/** Whether the database answers a trivial query within timeoutMs (for /healthz). */
export async function pingDatabase(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([db.one('SELECT 1 AS ok').then(() => true), timedOut]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
