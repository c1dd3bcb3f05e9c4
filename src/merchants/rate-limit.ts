// RATE_LIMIT_RPS per API token and second of the service clock, shared by every process on one
// database without a round trip per request. A process takes the second's budget in shares (SHARE_PARTS
// per second: a lease statement on rate_leases grants at most what is left of the limit) and counts its
// requests against its shares in memory, so a token's requests across all processes never pass the limit.
// A process may hold part of a share unused when another runs out, so a deployment can admit up to one
// share less per other process than the limit, never more. With the default limit (100) a busy token costs
// each process about eight short statements a second.
import { statement } from '../db';
import type { Db } from '../db';

/** Shares a second's budget is taken in. */
const SHARE_PARTS = 8;
/** Lease rows older than this many seconds are deleted by the worker. */
const KEEP_SECONDS = 60;

/** A share of a second's budget, never past the limit: $1 token, $2 second, $3 share, $4 limit. */
const LEASE_SQL = `INSERT INTO rate_leases AS r (api_token_id, second, granted, last_grant) VALUES ($1, $2, least($3::int, $4::int), least($3::int, $4::int))
  ON CONFLICT (api_token_id, second) DO UPDATE
    SET granted = least(r.granted + $3::int, $4::int), last_grant = least(r.granted + $3::int, $4::int) - r.granted
  RETURNING last_grant`;

interface Bucket {
  second: number;
  left: number;
  /** the limit is used up for this second (a lease got nothing) */
  spent: boolean;
  leasing: Promise<void> | null;
}

export class SharedRateLimit {
  private readonly buckets = new Map<number, Bucket>();

  constructor(
    private readonly db: Db,
    private readonly limit: () => number,
    private readonly now: () => Date,
  ) {}

  /** Whether one more request of the API token fits in this second's limit (always, when the limit is 0). */
  async admit(tokenId: number): Promise<boolean> {
    const limit = this.limit();
    if (limit === 0) return true;
    const second = Math.floor(this.now().getTime() / 1000);
    let b = this.buckets.get(tokenId);
    if (!b || b.second !== second) {
      b = { second, left: 0, spent: false, leasing: null };
      this.buckets.set(tokenId, b);
    }
    while (b.left === 0) {
      if (b.spent) return false;
      await (b.leasing ??= this.lease(b, tokenId, limit));
    }
    b.left -= 1;
    return true;
  }

  private async lease(b: Bucket, tokenId: number, limit: number): Promise<void> {
    try {
      const share = Math.ceil(limit / SHARE_PARTS);
      const { last_grant: got } = await this.db.one<{ last_grant: number }>(statement(this.db, 'rate-lease', LEASE_SQL, [tokenId, b.second, share, limit]));
      b.left += got;
      if (got === 0) b.spent = true;
    } finally {
      b.leasing = null;
    }
  }

  /** Deletes lease rows of past minutes (a worker). */
  async forgetPast(): Promise<number> {
    const second = Math.floor(this.now().getTime() / 1000) - KEEP_SECONDS;
    const r = await this.db.result('DELETE FROM rate_leases WHERE second < $1', [second]);
    return r.rowCount;
  }
}
