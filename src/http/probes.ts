// The three probes, answered alike by an api, worker or both process, without credentials:
//   /livez   the process is alive and its event loop answers; no dependency is asked, so a database
//            outage never makes a supervisor restart healthy processes.
//   /readyz  this process should get traffic: the database answers and takes writes (not a server in
//            recovery, as a standby is during a failover), every migration this build knows
//            is applied, and the background workers run where this role runs them. It fails first on
//            SIGTERM (status "stopping") while requests are still served, so a load balancer drains us.
//   /healthz as before: ready and the database answers.
import type express from 'express';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../errors';

export interface ProbeAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface ProbeState {
  /** started and not yet closing */
  isReady(): boolean;
  /** SIGTERM received: still serving, but no longer taking new traffic */
  isDraining(): boolean;
  /** whether the database answers now */
  databaseReachable(): Promise<boolean>;
  /**
   * 'ok', 'missing' (a migration of this build is not applied), 'read-only' (the database is a server in
   * recovery, which refuses writes: a standby, or a demoted primary during a failover) or 'unreachable',
   * within the probe's time
   */
  migrations(): Promise<'ok' | 'missing' | 'unreachable' | 'read-only'>;
  /** whether this process's background workers run, or null when its role runs none */
  workersRunning(): boolean | null;
}

const unavailable = (body: Record<string, unknown>): ProbeAnswer => ({ status: 503, body, headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) } });

export async function healthz(s: ProbeState): Promise<ProbeAnswer> {
  if (!s.isReady()) return { status: 503, body: { status: 'starting' } };
  if (await s.databaseReachable()) return { status: 200, body: { status: 'ok', database: 'ok' } };
  return unavailable({ status: 'unavailable', database: 'unreachable' });
}

export function livez(): ProbeAnswer {
  return { status: 200, body: { status: 'alive' } };
}

export async function readyz(s: ProbeState): Promise<ProbeAnswer> {
  if (s.isDraining()) return unavailable({ status: 'stopping' });
  if (!s.isReady()) return { status: 503, body: { status: 'starting' } };
  const migrations = await s.migrations();
  const running = s.workersRunning();
  const workers = running === null ? 'not run here' : running ? 'ok' : 'stopped';
  const database = migrations === 'unreachable' || migrations === 'read-only' ? migrations : 'ok';
  const body = { database, migrations: database === 'ok' ? migrations : 'unknown', workers };
  if (migrations === 'ok' && running !== false) return { status: 200, body: { status: 'ready', ...body } };
  return unavailable({ status: 'unavailable', ...body });
}

export const PROBE_PATHS = ['/healthz', '/livez', '/readyz'] as const;

export function answerProbe(path: string, s: ProbeState): Promise<ProbeAnswer> | null {
  if (path === '/healthz') return healthz(s);
  if (path === '/livez') return Promise.resolve(livez());
  if (path === '/readyz') return readyz(s);
  return null;
}

export function mountProbes(app: express.Router, s: ProbeState): void {
  app.get([...PROBE_PATHS], async (req, res) => {
    const a = (await answerProbe(req.path, s))!;
    res.status(a.status).set({ 'Cache-Control': 'no-store', ...a.headers }).json(a.body);
  });
}
