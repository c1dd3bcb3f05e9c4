// Completions and failures with group commit (GroupCommit, src/db/batcher.ts): state changes asked for while
// earlier ones are being written wait and go together, one read (sql/read-for-move.sql) and one guarded write
// (sql/move.sql) for the whole batch, each caller answered with its own outcome once that write has committed.
// A change alone is written at once, as a batch of one; inside an open operator change, at once and alone.
import type { Db, Queryable } from '../db';
import type { Logger } from '../log';
import { GroupCommit } from '../db/batcher';
import type { CollectionRow, FinalStatus } from '../domain/collection';

/**
 * The state a move starts from: PENDING, or a final state for a late completion, which only moves to
 * COMPLETED: EXPIRED when a processor confirmed payment after our own deadline (our clock, not its
 * word), FAILED or CANCELLED when an operator credits a success held because it came after that word
 * (docs/contract/states.md).
 */
export type MoveFrom = 'PENDING' | 'EXPIRED' | 'FAILED' | 'CANCELLED' | 'COMPLETED';

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

/** State changes with group commit: `write(ask)` answers the move's own MoveTry. */
export type MoveBatches = GroupCommit<MoveAsk, MoveTry>;

/** `lanes` batches written at once at most, each on a connection of the pool; `moveAll` is the one read and write. */
export function moveBatches(base: { readonly db: Db; log: Logger }, lanes: number, moveAll: MoveWrite): MoveBatches {
  return new GroupCommit(base, lanes, moveAll, 'state change');
}
