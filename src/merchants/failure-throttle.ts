// Failed attempts at a credential counted in the database (the auth_failures table): an API access token's
// Secret-Key, a dashboard sign-in, a TOTP code, a payment link page's submissions. Fixed one-minute windows per
// bucket, so every process of a deployment counts together. Windows before the previous one are deleted by
// the first count of each window.
import { AppError } from '../errors';
import type { Db } from '../db';
import { ifRolledBack } from '../db/change';

export const MAX_SIGN_IN_FAILURES_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

export class FailureThrottle {
  /** the window whose count last deleted the older ones (ms since the epoch) */
  private prunedAt = 0;

  constructor(
    /** read at each call: inside an audited change it is the change's transaction */
    private readonly dbNow: () => Db,
    private readonly now: () => Date,
    private readonly limit = MAX_SIGN_IN_FAILURES_PER_MINUTE,
  ) {}

  private get db(): Db {
    return this.dbNow();
  }

  /** Counts one attempt in each bucket; RATE_LIMITED with Retry-After when a bucket is over the limit. */
  async count(buckets: string[]): Promise<Date> {
    const now = this.now().getTime();
    const windowStart = new Date(now - (now % WINDOW_MS));
    const rows = await this.db.many<{ failures: number }>(
      `INSERT INTO auth_failures (bucket, window_start, failures) SELECT b, $2, 1 FROM unnest($1::text[]) AS b
       ON CONFLICT (bucket, window_start) DO UPDATE SET failures = auth_failures.failures + 1
       RETURNING failures`,
      [buckets, windowStart],
    );
    if (windowStart.getTime() > this.prunedAt) {
      this.prunedAt = windowStart.getTime();
      await this.db.none('DELETE FROM auth_failures WHERE window_start < $1', [new Date(windowStart.getTime() - WINDOW_MS)]);
    }
    if (rows.some((r) => r.failures > this.limit)) {
      const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000));
      throw new AppError('RATE_LIMITED', 'Too many attempts; wait before trying again', null, { 'Retry-After': String(retryAfter) });
    }
    return windowStart;
  }

  /**
   * Counts the attempt as a failure before the credential is checked, in one atomic upsert, so a burst
   * of parallel guesses cannot all pass a read-then-write check. A check that returns (the credential
   * was right) takes its count back.
   */
  async attempt<T>(buckets: string[], check: () => Promise<T>): Promise<T> {
    const windowStart = await this.count(buckets);
    let result: T;
    try {
      result = await check();
    } catch (e) {
      // the failure must count even when the change around it is rolled back
      ifRolledBack(() => this.count(buckets));
      throw e;
    }
    await this.db.none(
      'UPDATE auth_failures SET failures = failures - 1 WHERE bucket IN ($1:csv) AND window_start = $2 AND failures > 0',
      [buckets, windowStart],
    );
    return result;
  }
}
