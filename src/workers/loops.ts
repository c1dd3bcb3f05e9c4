// Background work is polling over the database with FOR UPDATE SKIP LOCKED, so several processes
// share it and nothing is lost across restarts. A worker's run() does one batch and returns how many
// items it handled; a full batch runs again at once, an empty one waits for the interval or a kick.
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Db } from '../db';
import { afterCommit } from '../db/change';
import { listenOn } from '../db/listen';
import type { Logger } from '../log';

export interface WorkerSpec {
  name: string;
  intervalMs: number;
  run: () => Promise<number>;
}

export interface Workers {
  /** run a named worker soon (e.g. right after a commit that gave it work) */
  kick(name: string): void;
  stop(): Promise<void>;
  /** whether this process's worker loops are running (absent where the work runs in other processes) */
  running?(): boolean;
  /** how far behind its schedule each worker is, in seconds: time since its last run ended, less its interval (absent as running) */
  lagSeconds?(): ReadonlyMap<string, number>;
}

const MAX_BACK_TO_BACK = 20;

export function startWorkers(specs: WorkerSpec[], log: Logger): Workers {
  let stopped = false;
  const running = new Map<string, Promise<void>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const again = new Set<string>();
  const started = Date.now();
  const lastRun = new Map<string, number>(specs.map((s) => [s.name, started]));

  const schedule = (spec: WorkerSpec, delayMs: number) => {
    if (stopped) return;
    clearTimeout(timers.get(spec.name));
    // a run belongs to no request's trace, even when a request's kick scheduled it
    timers.set(spec.name, setTimeout(() => context.with(ROOT_CONTEXT, () => loop(spec)), delayMs));
  };

  const loop = (spec: WorkerSpec) => {
    if (stopped) return;
    if (running.has(spec.name)) {
      again.add(spec.name);
      return;
    }
    const p = (async () => {
      let handled = 0;
      for (let i = 0; i < MAX_BACK_TO_BACK && !stopped; i++) {
        try {
          handled = await spec.run();
        } catch (err) {
          log.error('worker failed', { worker: spec.name, err });
          handled = 0;
        }
        if (handled === 0) break;
      }
    })().finally(() => {
      lastRun.set(spec.name, Date.now());
      running.delete(spec.name);
      const now = again.delete(spec.name);
      schedule(spec, now ? 0 : spec.intervalMs);
    });
    running.set(spec.name, p);
  };

  const byName = new Map(specs.map((s) => [s.name, s]));
  for (const spec of specs) schedule(spec, 0);
  return {
    kick(name) {
      const spec = byName.get(name);
      // the work a kick announces is only there for the worker once the change that made it commits
      if (spec) afterCommit(() => schedule(spec, 0));
    },
    async stop() {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      await Promise.allSettled([...running.values()]);
    },
    running: () => !stopped,
    lagSeconds: () => {
      const now = Date.now();
      return new Map(specs.map((spec) => [spec.name, Math.max(0, now - (lastRun.get(spec.name) ?? started) - spec.intervalMs) / 1000]));
    },
  };
}

/** The channel on which API processes wake the worker processes (ROLE=api / ROLE=worker). */
export const KICK_CHANNEL = 'paycollect_work';
/** An API process sends each worker's kick at most once per this many milliseconds. */
const KICK_COALESCE_MS = 10;

/**
 * Kicks for workers that run in other processes: each named kick is sent as a NOTIFY on KICK_CHANNEL,
 * coalesced so that a busy API process sends a few per second, not one per request. Fire and forget:
 * a kick that is lost only leaves the work to the worker's own polling.
 */
export function remoteKicks(db: Db, log: Logger): Workers {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let sending: Promise<unknown> = Promise.resolve();
  const flush = () => {
    timer = null;
    const names = [...pending];
    pending.clear();
    sending = Promise.all(names.map((n) => db.none('SELECT pg_notify($1, $2)', [KICK_CHANNEL, n]))).catch((err) => log.warn('worker kick not sent', { err }));
  };
  return {
    kick(name) {
      afterCommit(() => {
        pending.add(name);
        timer ??= setTimeout(flush, KICK_COALESCE_MS);
      });
    },
    async stop() {
      if (timer) {
        clearTimeout(timer);
        flush();
      }
      await sending;
    },
  };
}

/**
 * A worker process listens on KICK_CHANNEL and runs the named worker at once. The listening session
 * is re-opened after a failure; meanwhile the workers keep polling.
 */
export function listenForKicks(db: Db, workers: Workers, log: Logger): { stop(): Promise<void> } {
  return listenOn(db, KICK_CHANNEL, { notice: (name) => name && workers.kick(name) }, log);
}
