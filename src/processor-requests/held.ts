// The operator's side of collections' processor requests (docs/contract/processors.md): what they see
// of a page of collections' requests, and their decision, once, on a payment held for them.
import type { Base } from '../base';
import type { CollectionService, MoveFrom } from '../collections';
import { sqlFile } from '../db';
import { afterCommit } from '../db/change';
import type { Status } from '../domain/collection';
import { AppError } from '../errors';
import { toProcessorRequestView } from '../api-records/collection';
import type { ProcessorRequestRow, ProcessorRequestView } from '../api-records/collection';

const VIEWS_OF_SQL = sqlFile(__dirname, 'views-of.sql');

export class HeldPayments {
  constructor(private readonly s: Base & { collections: CollectionService }) {}

  /** What the operator sees of these collections' processor requests (one read for a whole page). */
  async viewsOf(collectionIds: bigint[]): Promise<Map<bigint, ProcessorRequestView>> {
    if (collectionIds.length === 0) return new Map();
    const rows = await this.s.db.any<ProcessorRequestRow & { collection_id: bigint }>(VIEWS_OF_SQL, { ids: collectionIds });
    return new Map(rows.map(({ collection_id, ...r }) => [collection_id, toProcessorRequestView(r)]));
  }

  /**
   * The operator's decision on a held payment, once: the state change (credit and notification, as any
   * completion or failure) and the decision on the request commit together. A success held because it
   * came after the collection was FAILED or CANCELLED: COMPLETED credits it as a late completion (from
   * that state), FAILED leaves the collection as the merchant knows it (the operator returns the money at
   * the processor). INVALID_STATE when the request is not held or the collection moved meanwhile; nothing
   * changes then.
   */
  async resolveHeld(collectionId: bigint, outcome: 'COMPLETED' | 'FAILED', note: string, by: string): Promise<void> {
    const finished = await this.s.db.tx(async (t) => {
      const held = await t.oneOrNone<{ status: Status }>(
        `SELECT c.status FROM processor_requests p JOIN collections c ON c.id = p.collection_id
          WHERE p.collection_id = $1 AND p.state = 'held' FOR UPDATE`,
        [collectionId],
      );
      if (!held) throw new AppError('INVALID_STATE', 'This collection has no held processor request: only a held payment can be resolved, once');
      const late = held.status !== 'PENDING';
      // a late success the operator refuses leaves the collection as the merchant knows it: nothing moves
      const keep = late && outcome === 'FAILED';
      const moved = keep ? null : await this.s.collections.move(t, collectionId, outcome, undefined, late ? (held.status as MoveFrom) : 'PENDING');
      if (!keep && !moved) throw new AppError('INVALID_STATE', `The collection is ${held.status}: it can no longer be resolved`);
      await t.none(
        `UPDATE processor_requests SET state = 'settled', resolved_outcome = $2, resolution_note = $3, resolved_by = $4, resolved_at = $5, updated_at = $5
          WHERE collection_id = $1`,
        [collectionId, outcome, note, by, this.s.now()],
      );
      return moved;
    });
    // within an operator's audited change, counted once that change commits
    if (finished) afterCommit(() => this.s.collections.finished([finished]));
    this.s.kick('webhooks');
    this.s.kick('emails');
  }
}
