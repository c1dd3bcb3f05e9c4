// This process's liveness: an id that names its webhook and email claims, and a heartbeat in the
// database. Each beat also frees the claims of processes that stopped beating (killed or crashed), so a
// delivery they had under way is retried within LIVENESS_STALE_MS rather than at the end of its lease.
import { randomUUID } from 'node:crypto';
import { sqlFile } from '../db';
import type { WorkerSpec } from './loops';
import type { Base } from '../base';

export const LIVENESS_BEAT_MS = 2000;
/** a process silent this long is taken for dead (long enough for a busy event loop to be late) */
export const LIVENESS_STALE_MS = 10_000;
const BEAT_SQL = sqlFile(__dirname, 'liveness-beat.sql');

/** Frees the claims of processes that stopped beating, in a wing that claims rows; returns how many. */
export type FreeDeadClaims = (self: string, staleBefore: Date, now: Date) => Promise<number>;

export class LivenessService {
  readonly processId = randomUUID();
  private readonly freers: FreeDeadClaims[] = [];

  constructor(private readonly s: Base) {}

  /** A wing whose claims name their process frees a dead process's claims after each beat. */
  onBeat(free: FreeDeadClaims): void {
    this.freers.push(free);
  }

  /** One beat; returns how many claims of dead processes were freed. */
  async beat(): Promise<number> {
    const now = this.s.now();
    const staleBefore = new Date(now.getTime() - LIVENESS_STALE_MS);
    await this.s.db.none(BEAT_SQL, { self: this.processId, now, staleBefore });
    let freed = 0;
    for (const free of this.freers) freed += await free(this.processId, staleBefore, now);
    if (freed > 0) {
      this.s.log.warn('freed the claims of a process that stopped', { claims: freed });
      this.s.kick('webhooks');
      this.s.kick('emails');
    }
    return freed;
  }

  /** On an orderly stop, after the last send is recorded: nothing of ours is left to free. */
  async leave(): Promise<void> {
    await this.s.db.none('DELETE FROM worker_processes WHERE id = $1', [this.processId]);
  }

  workers(): WorkerSpec[] {
    // a beat is never repeated at once (it reports 0 handled): the next one comes after the interval
    const run = async () => {
      await this.beat();
      return 0;
    };
    return [{ name: 'liveness', intervalMs: LIVENESS_BEAT_MS, run }];
  }
}
