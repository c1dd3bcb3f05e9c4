// Round-robin turns among MIDs of equal rank, shared by every process through routing_cursors (a row per
// business, method, currency and rank), taken a block at a time: a process reserves a block of turns in
// one statement and hands them out from memory, reserving the next block when half of this one is used,
// so a request-to-pay almost never waits for a turn. A route whose turns ran out before its next block came
// (more requests in flight than half a block) reserves blocks twice as big from then on, up to
// MAX_TURN_BLOCK: a fixed block of 16 made every request of a burst wait, and wake, and wait again.
// Across processes every turn is used once, so the MIDs share the traffic evenly; only the order
// interleaves by blocks. A process that stops loses the rest of its block, which only shifts the rotation
// (no money rides on it).
import type { Db } from '../db';
import type { PaymentMethod } from '../domain/collection';

/** the first block of a route */
export const TURN_BLOCK = 16;
/** the largest block a route grows to */
export const MAX_TURN_BLOCK = 1024;

interface Block {
  next: number;
  end: number;
}

interface Route {
  block: Block | null;
  /** the next block, reserved before this one runs out */
  spare: Block | null;
  reserving: Promise<void> | null;
  /** turns in the route's next block */
  size: number;
}

export class RoutingTurns {
  private readonly routes = new Map<string, Route>();

  constructor(private readonly db: Db) {}

  /** The next turn (counting from 1) of a route. */
  async take(businessId: number, method: PaymentMethod, currency: string, rank: number): Promise<number> {
    const key = `${businessId}:${method}:${currency}:${rank}`;
    let route = this.routes.get(key);
    if (!route) {
      route = { block: null, spare: null, reserving: null, size: TURN_BLOCK };
      this.routes.set(key, route);
    }
    const reserve = (r: Route) =>
      (r.reserving ??= this.reserveBlock(businessId, method, currency, rank, r.size)
        .then((b) => {
          r.spare = b;
        })
        .finally(() => {
          r.reserving = null;
        }));
    for (;;) {
      const b = route.block;
      if (b && b.next <= b.end) {
        const turn = b.next++;
        if (b.end - b.next < route.size / 2 && !route.spare) void reserve(route).catch(() => undefined);
        return turn;
      }
      if (route.spare) {
        route.block = route.spare;
        route.spare = null;
        continue;
      }
      // the block ran out before the next one came: the route's next blocks are twice as big (once per
      // block run out, however many requests then wait for the one reservation)
      if (route.block) {
        route.block = null;
        route.size = Math.min(route.size * 2, MAX_TURN_BLOCK);
      }
      await reserve(route);
    }
  }

  /**
   * Every process's turns come from this one row, so its lock must be short: the commit does not wait for
   * the WAL flush (a crash may repeat a block of turns, which only shifts the rotation).
   */
  private async reserveBlock(businessId: number, method: PaymentMethod, currency: string, rank: number, size: number): Promise<Block> {
    const { turn } = await this.db.one<{ turn: bigint }>(
      `SET LOCAL synchronous_commit TO OFF;
       INSERT INTO routing_cursors (business_id, payment_method, currency, processing_rank, turn) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (business_id, payment_method, currency, processing_rank) DO UPDATE SET turn = routing_cursors.turn + $5
       RETURNING turn`,
      [businessId, method, currency, rank, size],
    );
    return { next: Number(turn) - size + 1, end: Number(turn) };
  }
}
