// A collection's state change from a provider's answer (applyOutcome), with group commit (issue 25): moves
// that arrive while earlier ones are being written wait and go together in one transaction, each through
// the one move path (sql/read-for-move.sql, sql/move.sql), committed once; each caller is answered with
// its own result once that transaction has committed (src/db/batcher.ts). Completions of one hot wallet
// otherwise commit one at a time: each holds the wallet's running-balance rows until its commit. A move
// alone is written at once, as a batch of one, without a transaction (its statement is atomic). A batch
// the database refuses (a deadlock with another transaction, a failed statement) is written again one by
// one, so only what failed alone fails its caller. Inside an open operator change the move goes to the
// change's transaction at once, alone.
import type { Db, Queryable } from '../db';
import type { Logger } from '../log';
import { Batcher } from '../db/batcher';
import { inOpenChange } from '../db/change';
import { countedApart, takeOver } from '../db/outcome';
import type { WritesApart } from '../db/outcome';
import type { CollectionRow, FinalStatus } from '../domain/collection';
import type { MoveFrom } from './collections';

/** The most moves in one transaction. */
const MAX_BATCH = 64;

/** One state change asked for: the collection, where it goes, the state it must still be in. */
export interface MoveAsked {
  id: bigint;
  outcome: FinalStatus;
  message: string | undefined;
  from: MoveFrom;
}

/** The one move path: the moved row, or null when the collection was not `from` (a repeat, a race lost). */
export type MoveOne = (q: Queryable, asked: MoveAsked) => Promise<CollectionRow | null>;

interface Job {
  asked: MoveAsked;
  /** the writes of the batch that carried it, for its caller to count as its own */
  apart: WritesApart | null;
}

export class MoveBatches {
  private readonly batcher: Batcher<Job, CollectionRow | null>;

  /**
   * `base.db` is read at each write (the pool, or an open change's transaction); `moveOne` is the one move
   * path; `lanes` batches are written at once at most, each on a connection of the pool.
   */
  constructor(
    private readonly base: { readonly db: Db; log: Logger },
    private readonly moveOne: MoveOne,
    lanes: number,
  ) {
    this.batcher = new Batcher((jobs) => this.written(jobs), { maxBatch: MAX_BATCH, maxRunning: lanes }, (err, size) =>
      base.log.warn('collection move batch refused, written again one by one', { size, error: (err as Error).message }),
    );
  }

  /** Moves one collection with whatever else is waiting; its own result once committed. */
  async move(asked: MoveAsked): Promise<CollectionRow | null> {
    if (inOpenChange()) return this.moveOne(this.base.db, asked);
    const job: Job = { asked, apart: null };
    try {
      return await this.batcher.add(job);
    } finally {
      // the batch's writes were sent for this move too: lost with the connection, its outcome is unknown
      if (job.apart) takeOver(job.apart);
    }
  }

  private written(jobs: Job[]): Promise<(CollectionRow | null)[]> {
    const apart = countedApart(() => this.inOneTransaction(jobs.map((j) => j.asked)));
    for (const j of jobs) j.apart = apart;
    return apart.done;
  }

  /**
   * A batch of one alone (atomic without a transaction); more in one transaction, in collection id order
   * (as the report worker's batches, so two batches do not wait on each other's collections in a cycle),
   * each answered in its caller's place. A collection asked twice moves once: the second read sees the first.
   */
  private async inOneTransaction(batch: MoveAsked[]): Promise<(CollectionRow | null)[]> {
    if (batch.length === 1) return [await this.moveOne(this.base.db, batch[0])];
    const order = batch.map((_, i) => i).sort((a, b) => (batch[a].id === batch[b].id ? a - b : batch[a].id < batch[b].id ? -1 : 1));
    return this.base.db.tx(async (t) => {
      const results: (CollectionRow | null)[] = new Array<CollectionRow | null>(batch.length).fill(null);
      for (const i of order) results[i] = await this.moveOne(t, batch[i]);
      return results;
    });
  }
}
