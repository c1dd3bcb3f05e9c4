// Group commit: writes that arrive while earlier ones are still on their way to the database are gathered
// and written together, by one statement, then each caller is answered with its own result once that
// statement has committed. There is no timer: a write that finds a slot free goes at once (a batch of one,
// so a quiet service waits for nothing), and the batch grows only with what arrived while every slot was
// busy. A batch that fails for any reason but a lost database is written again one by one, so one bad
// write fails only its own caller. `GroupCommit` is that for one request's write of a hot statement (a
// request-to-pay, a state change): the batch's writes count as each of its requests' own, and inside an open
// operator change the write goes to the change's transaction at once, alone.
import { isDatabaseUnavailable } from './index';
import type { Db, Queryable } from './index';
import type { Logger } from '../log';
import { inOpenChange } from './change';
import { countedApart, takeOver } from './outcome';
import type { WritesApart } from './outcome';

export interface BatcherLimits {
  /** the most writes in one batch */
  maxBatch: number;
  /** the most batches on their way at once (each holds a connection of the pool) */
  maxRunning: number;
}

/** Told when a batch of `size` writes was refused with `err` and is about to be written again one by one. */
export type OnRefused = (err: unknown, size: number) => void;

interface Waiting<In, Out> {
  item: In;
  resolve: (out: Out) => void;
  reject: (err: unknown) => void;
}

export class Batcher<In, Out> {
  private readonly waiting: Waiting<In, Out>[] = [];
  private running = 0;

  /**
   * `write` writes every item it is given in one statement (one transaction) and answers one result per
   * item, in their order; a result is the caller's own (its row, or what refused it), never a throw for
   * one item's sake.
   */
  constructor(
    private readonly write: (items: In[]) => Promise<Out[]>,
    private readonly limits: BatcherLimits,
    private readonly onRefused: OnRefused = () => undefined,
  ) {
    if (!(limits.maxBatch >= 1 && limits.maxRunning >= 1)) throw new Error(`a batcher needs limits of at least 1, got ${JSON.stringify(limits)}`);
  }

  /** Writes `item` with whatever else is waiting; resolves with its own result once its batch committed. */
  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  /** How many writes wait for a slot now (not yet sent). */
  get queued(): number {
    return this.waiting.length;
  }

  private pump(): void {
    while (this.running < this.limits.maxRunning && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.limits.maxBatch);
      this.running += 1;
      void this.run(batch).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
  }

  private async run(batch: Waiting<In, Out>[]): Promise<void> {
    try {
      const outs = await this.written(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(outs[i]));
    } catch (err) {
      if (batch.length === 1 || isDatabaseUnavailable(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      // one write of the batch may be what the database refused: each alone, so it fails only its caller
      this.onRefused(err, batch.length);
      for (const w of batch) {
        try {
          w.resolve((await this.written([w.item]))[0]);
        } catch (alone) {
          w.reject(alone);
        }
      }
    }
  }

  private async written(items: In[]): Promise<Out[]> {
    const outs = await this.write(items);
    if (outs.length !== items.length) throw new Error(`a batch of ${items.length} writes answered ${outs.length} results`);
    return outs;
  }
}

/** The most requests in one statement of a group commit. */
const GROUP_MAX_BATCH = 64;

/** One statement for every item of a batch on `q`, one answer per item, in their order. */
export type WriteAll<In, Out> = (q: Queryable, items: readonly In[]) => Promise<Out[]>;

interface Carried<In> {
  item: In;
  /** the writes of the batch that carried it, for its request to count as its own */
  apart: WritesApart | null;
}

/**
 * Group commit of one hot write: a request's write goes with whatever else is waiting, in one statement
 * (`writeAll`), and is answered with its own result once that statement committed. A batch never mixes an
 * open operator change's write with others: that one goes to the change's transaction at once, alone.
 */
export class GroupCommit<In, Out> {
  private readonly batcher: Batcher<Carried<In>, Out>;

  /**
   * `base.db` is read at each write (the pool, or an open change's transaction); `lanes` batches are
   * written at once at most, each on a connection of the pool; `what` names the write in the log.
   */
  constructor(
    private readonly base: { readonly db: Db; log: Logger },
    lanes: number,
    private readonly writeAll: WriteAll<In, Out>,
    what: string,
  ) {
    this.batcher = new Batcher((batch) => this.written(batch), { maxBatch: GROUP_MAX_BATCH, maxRunning: lanes }, (err, size) =>
      base.log.warn(`${what} batch refused, written again one by one`, { size, error: (err as Error).message }),
    );
  }

  /** Writes `item` with whatever else is waiting; its own answer once committed. */
  async write(item: In): Promise<Out> {
    if (inOpenChange()) return (await this.writeAll(this.base.db, [item]))[0];
    const carried: Carried<In> = { item, apart: null };
    try {
      return await this.batcher.add(carried);
    } finally {
      // the batch's statement was sent for this request too: lost with the connection, its outcome is unknown
      if (carried.apart) takeOver(carried.apart);
    }
  }

  private written(batch: Carried<In>[]): Promise<Out[]> {
    const apart = countedApart(() => this.writeAll(this.base.db, batch.map((c) => c.item)));
    for (const c of batch) c.apart = apart;
    return apart.done;
  }
}
