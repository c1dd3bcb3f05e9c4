// Shared parts of `npm run bench`: child processes, ports, RSS sampling, percentiles and one load run.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { pgp } from '../../src/db';
import { openLoopPost } from './open-loop';

export const ROOT = path.resolve(__dirname, '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

/** A positive number from the environment, else the fallback; anything else stops the run with its name. */
export function setting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  output(): string;
}

/**
 * A child process whose output goes to `logFile` (a file, as a deployment's log collector would take it;
 * a pipe to this busy process would make every log write of the child wait).
 */
export function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Child {
  const fd = openSync(logFile, 'a');
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const output = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-65536);
    } catch {
      return '';
    }
  };
  return { name, process: child, pid: child.pid, output };
}

/** Resolves once `url` answers at all (any status); fails with the child's output after the deadline. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 120_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}:\n${child.output()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${child.name} did not answer ${url}:\n${child.output()}`);
    await sleep(100);
  }
}

/** Resolves once `file` exists; fails with the child's output if the child exits or the deadline passes. */
export async function waitForFile(file: string, child: Child, timeoutMs = 30_000): Promise<void> {
  const started = performance.now();
  while (!existsSync(file)) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}:\n${child.output()}`);
    if (performance.now() - started > timeoutMs) throw new Error(`${child.name} did not write ${file}:\n${child.output()}`);
    await sleep(50);
  }
}

/** SIGTERM, then SIGKILL after the grace period; resolves with the exit code. */
export function stopChild(child: Child, graceMs = 20_000): Promise<number | null> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return Promise.resolve(child.process.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
    child.process.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.process.kill('SIGTERM');
  });
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export const mb = (kb: number | null) => (kb === null ? null : Math.round(kb / 102.4) / 10);

/** The process's resident memory now, in MB (Linux). */
export function rssMb(pid: number): number | null {
  return mb(statusKb(pid, 'VmRSS'));
}

/** The process's high-water mark of resident memory since it started, in MB (Linux). */
export function highWaterMb(pid: number): number | null {
  return mb(statusKb(pid, 'VmHWM'));
}

/** Samples a process's resident memory every `everyMs` until stopped; the peak is in MB. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number | null } {
  let peak: number | null = null;
  const take = () => {
    const kb = statusKb(pid, 'VmRSS');
    if (kb !== null && (peak === null || kb > peak)) peak = kb;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return mb(peak);
    },
  };
}

const CLOCK_TICKS_PER_S = 100;

/** CPU time (user + system) a process has used so far, in ms; 0 when it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return 0;
  }
}

/**
 * The server's backends serving the database at `databaseUrl` (the bench's own fresh database: the service's
 * pool and listening session, and the bench's in-process harness), leaving out the asking connection and
 * every other database's. The server's shared processes (WAL writer, checkpointer) are left out too: on a
 * shared machine they also work for every other database, which is what made the figure unreadable.
 */
export async function databaseBackends(databaseUrl: string): Promise<number[]> {
  // one short session of node-postgres (pg-promise's driver): the pool of a pg-promise object per reading would be heavier
  const client = new pgp.pg.Client({ connectionString: databaseUrl }) as unknown as {
    connect(): Promise<void>;
    query<R>(text: string): Promise<{ rows: R[] }>;
    end(): Promise<void>;
  };
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** CPU ms used between two readings, by process: a process first seen in the second reading counts from zero. */
export function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, now] of after) ms += Math.max(0, now - (before.get(pid) ?? 0));
  return ms;
}

const cpuReading = (pids: Iterable<number>) => new Map([...pids].map((p) => [p, cpuMsOf(p)] as [number, number]));

export interface CpuPerRequest {
  /** the process under load (for the embedded database, the database engine is in it) */
  server_ms: number;
  /** the PostgreSQL backends serving the measured database (null when the database is embedded) */
  postgres_ms: number | null;
  /** this process: autocannon making the load */
  load_generator_ms: number;
}

/**
 * CPU used between this call and the returned function's by the server process, by the PostgreSQL backends
 * of the database at `databaseUrl` (none when null: embedded, or not a database service) and by this process.
 * Backends are listed at both ends: a pool's sessions live through a run, and one opened during it counts whole.
 */
export async function cpuMeter(pid: number, databaseUrl: string | null) {
  const pg0 = databaseUrl ? cpuReading(await databaseBackends(databaseUrl)) : null;
  const server0 = cpuMsOf(pid);
  const self0 = process.cpuUsage();
  return async (requests: number): Promise<CpuPerRequest> => {
    const self = process.cpuUsage(self0);
    const server = cpuMsOf(pid) - server0;
    const pg = pg0 && databaseUrl ? cpuDelta(pg0, cpuReading(new Set([...pg0.keys(), ...(await databaseBackends(databaseUrl))]))) : null;
    const per = (ms: number) => Math.round((ms / Math.max(1, requests)) * 100) / 100;
    return {
      server_ms: per(server),
      postgres_ms: pg === null ? null : per(pg),
      load_generator_ms: per((self.user + self.system) / 1000),
    };
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /**
   * A fixed offered load, sent open-loop (open-loop.ts: evenly spaced, latency from each request's planned
   * departure), instead of `connections` each sending its next request as soon as its answer arrives
   * (autocannon); undefined: as fast as answered.
   */
  ratePerSecond?: number;
}

export interface HttpFigures {
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  errors: number;
  non_2xx: number;
  timeouts: number;
  peak_rss_mb: number | null;
  /** CPU time per request answered, by process (Linux /proc; 10 ms resolution over the whole run) */
  cpu_per_request: CpuPerRequest;
  /** when the measured run began and ended (performance.now() of this process) */
  window: { start: number; end: number };
}

/**
 * One POST endpoint under load: a warm-up (discarded), then the measured run. Every request gets a
 * fresh merchant_reference from `makeBody(n)`. Throughput counts 2xx answers only.
 */
export async function loadPost(o: {
  url: string;
  headers: Record<string, string>;
  makeBody: (n: number) => string;
  settings: LoadSettings;
  pid: number;
  /** the database on this machine's PostgreSQL server whose backends' CPU counts too (null: embedded, or none) */
  databaseUrl: string | null;
}): Promise<HttpFigures> {
  let n = 0;
  const makeBody = () => o.makeBody(++n);
  const rate = o.settings.ratePerSecond;
  const run = async (durationSeconds: number) => {
    if (rate) {
      const r = await openLoopPost({ url: o.url, headers: o.headers, makeBody, rate, seconds: durationSeconds });
      return { ok: r.answered_2xx, total: r.sent, seconds: durationSeconds, p50: r.p50_ms, p99: r.p99_ms, errors: r.errors, non2xx: 0, timeouts: 0 };
    }
    const r = await autocannon({
      url: o.url,
      method: 'POST',
      connections: o.settings.connections,
      duration: durationSeconds,
      timeout: 10,
      headers: o.headers,
      requests: [{ setupRequest: (req) => ({ ...req, body: makeBody() }) }],
    });
    return { ok: r['2xx'], total: r.requests.total, seconds: r.duration, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx, non2xx: r.non2xx, timeouts: r.timeouts };
  };
  if (o.settings.warmupSeconds > 0) await run(o.settings.warmupSeconds);
  const rss = sampleRss(o.pid);
  const cpu = await cpuMeter(o.pid, o.databaseUrl);
  const start = performance.now();
  const r = await run(o.settings.durationSeconds);
  const end = performance.now();
  const cpuPerRequest = await cpu(r.total);
  const peak = rss.stop();
  return {
    req_per_s: round1(r.ok / r.seconds),
    p50_ms: r.p50,
    p99_ms: r.p99,
    requests: r.total,
    errors: r.errors,
    non_2xx: r.non2xx,
    timeouts: r.timeouts,
    peak_rss_mb: peak,
    cpu_per_request: cpuPerRequest,
    window: { start, end },
  };
}
