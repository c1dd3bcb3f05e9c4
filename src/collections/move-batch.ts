// Completions and failures with group commit (issue 25): state changes asked for while earlier ones are being
// written wait and go together, one read (sql/read-for-move.sql) and one guarded write (sql/move.sql) for the
// whole batch, each caller answered with its own outcome once that write has committed (src/db/batcher.ts).
// A change alone is written at once, as a batch of one. Inside an open operator change the move goes to the
// change's transaction at once, alone: a batch never mixes a change's move with others.
import type { Db, Queryable } from '../db';
import type { Logger } from '../log';
import { Batcher } from '../db/batcher';
import { inOpenChange } from '../db/change';
import { countedApart, takeOver } from '../db/outcome';
import type { WritesApart } from '../db/outcome';
import type { CollectionRow, FinalStatus } from '../domain/collection';

/** The most moves in one statement (as request-to-pay's batches). */
const MAX_BATCH = 64;

/**
 * The state a move starts from: PENDING, or a final state for a late completion, which only moves to
 * COMPLETED: EXPIRED when a processor confirmed payment after our own deadline (our clock, not its
 * word), FAILED or CANCELLED when an operator credits a success held because it came after that word
 * (docs/contract/states.md).
 */
export type MoveFrom = 'PENDING' | 'EXPIRED' | 'FAILED' | 'CANCELLED';

/** One collection's asked-for change. */
export interface MoveAsk {
  collectionId: bigint;
  outcome: FinalStatus;
  message?: string;
  from: MoveFrom;
}

/** A move's guard found its row changed between the read and the write: read it again and try once more. */
export const MISSED = Symbol('missed');

/** What one read and one write answer for a move: the moved row, null (not `from` when read), or MISSED. */
export type MoveTry = CollectionRow | null | typeof MISSED;

/** One read and one write for every move of `asks` on `q`, one answer each, in their order. */
export type MoveWrite = (q: Queryable, asks: readonly MoveAsk[]) => Promise<MoveTry[]>;

interface Job {
  ask: MoveAsk;
  /** the writes of the batch that carried it, for its caller to count as its own */
  apart: WritesApart | null;
}

export class MoveBatches {
  private readonly batcher: Batcher<Job, MoveTry>;

  /**
   * `base.db` is read at each write (the pool, or an open change's transaction); `lanes` batches are
   * written at once at most, each on a connection of the pool; `moveAll` is the one read and write.
   */
  constructor(
    private readonly base: { readonly db: Db; log: Logger },
    lanes: number,
    private readonly moveAll: MoveWrite,
  ) {
    this.batcher = new Batcher((jobs) => this.written(jobs), { maxBatch: MAX_BATCH, maxRunning: lanes }, (err, size) =>
      base.log.warn('state change batch refused, written again one by one', { size, error: (err as Error).message }),
    );
  }

  /** One read and one write of `ask` with whatever else is waiting; its own answer once committed. */
  async write(ask: MoveAsk): Promise<MoveTry> {
    if (inOpenChange()) return (await this.moveAll(this.base.db, [ask]))[0];
    const job: Job = { ask, apart: null };
    try {
      return await this.batcher.add(job);
    } finally {
      // the batch's write was sent for this move too: lost with the connection, its outcome is unknown
      if (job.apart) takeOver(job.apart);
    }
  }

  private written(jobs: Job[]): Promise<MoveTry[]> {
    const apart = countedApart(() => this.moveAll(this.base.db, jobs.map((j) => j.ask)));
    for (const j of jobs) j.apart = apart;
    return apart.done;
  }
}
