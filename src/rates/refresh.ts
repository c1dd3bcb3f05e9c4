// The refresh of market rates from the daily feeds (docs/contract/money.md, "Which wallet, and market rates"): each configured
// feed is asked for its day of rates once every RATE_REFRESH_MINUTES (after a failure, sooner), by whichever
// process takes the feed's turn in rate_sources first. A newer day replaces the feed's rates of older days;
// a failed attempt keeps every rate as it was and records the error. A currency missing from a day keeps its
// older rate, which goes stale on its own (src/domain/rate-age.ts). A pair's new rate that moves more than
// RATE_JUMP_PERCENT from the feed rate in use is held in fx_rate_jumps for the operator (jumps.ts), not used.
import type { Base } from '../base';
import type { RateFeed } from '../config';
import { sqlFile } from '../db';
import { PIVOT } from '../domain/fx';
import { isJump } from '../domain/rate-jump';
import type { WorkerSpec } from '../workers/loops';
import { fetchFeedDay } from './client';
import type { FeedDay } from './transformers';

const STORE_FEED_DAY = sqlFile(__dirname, 'store-feed-day.sql');
const HOLD_JUMPS = sqlFile(__dirname, 'hold-jumps.sql');
/** After a failed attempt a feed is asked again this soon (or at RATE_REFRESH_MINUTES if sooner). */
const RETRY_AFTER_FAILURE_MINUTES = 5;
/** How often the worker looks for a feed whose turn has come. */
const POLL_MS = 60_000;

export interface RateSourceRow {
  name: RateFeed;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_as_of: Date | null;
  last_error: string | null;
}

export interface RefreshResult {
  feed: RateFeed;
  /** pairs whose rate changed */
  stored: number;
  /** pairs whose new rate was held as a jump, not used */
  held: number;
  error: string | null;
}

export class RateRefresh {
  /** `changed`: told after rates were written (this process's configuration cache drops its copy, as after an operator's change) */
  constructor(private readonly s: Base & { changed: () => void }) {}

  /** Asks every configured feed whose turn has come; returns what each did. */
  async refreshDue(): Promise<RefreshResult[]> {
    const results: RefreshResult[] = [];
    for (const feed of this.s.config.rates.feeds) {
      if (await this.takeTurn(feed)) results.push(await this.ask(feed));
    }
    return results;
  }

  /** Asks one feed now, whatever its turn (the turn is taken too). */
  async refresh(feed: RateFeed): Promise<RefreshResult> {
    await this.s.db.none('UPDATE rate_sources SET last_attempt_at = $2 WHERE name = $1', [feed, this.s.now()]);
    return this.ask(feed);
  }

  /** The feed asked, its turn already taken: its day stored, or its failure recorded. */
  private async ask(feed: RateFeed): Promise<RefreshResult> {
    const answer = await fetchFeedDay(feed, this.s.config.rates);
    if (answer.kind === 'failed') {
      this.s.log.warn('market rate feed failed; its last rates are kept', { feed, error: answer.error });
      await this.s.db.none('UPDATE rate_sources SET last_error = $2 WHERE name = $1', [feed, answer.error.slice(0, 500)]);
      return { feed, stored: 0, held: 0, error: answer.error };
    }
    const { stored, held } = await this.store(feed, answer.day);
    if (stored > 0) this.s.changed();
    if (held.length > 0) this.s.log.warn('market rate jumps held for the operator; the rates in use are kept', { feed, pairs: held.map((q) => `${PIVOT}/${q}`) });
    return { feed, stored, held: held.length, error: null };
  }

  sources(): Promise<RateSourceRow[]> {
    return this.s.db.any<RateSourceRow>('SELECT * FROM rate_sources ORDER BY name');
  }

  workers(): WorkerSpec[] {
    if (this.s.config.rates.feeds.length === 0) return [];
    // never a full batch: the loop waits POLL_MS between looks
    return [{ name: 'rate-refresh', intervalMs: POLL_MS, run: async () => (await this.refreshDue(), 0) }];
  }

  /** The feed's turn: its last attempt is older than its refresh interval (after a failure, the retry delay). */
  private async takeTurn(feed: RateFeed): Promise<boolean> {
    const refresh = this.s.config.rates.refreshMinutes;
    const row = await this.s.db.oneOrNone(
      `UPDATE rate_sources SET last_attempt_at = $2
       WHERE name = $1 AND (last_attempt_at IS NULL
         OR last_attempt_at <= $2::timestamptz - make_interval(mins => CASE WHEN last_error IS NULL THEN $3::int ELSE $4::int END))
       RETURNING name`,
      [feed, this.s.now(), refresh, Math.min(refresh, RETRY_AFTER_FAILURE_MINUTES)],
    );
    return row !== null;
  }

  /**
   * The day's rates that are newer than the feed rows in use, written with the feed's success, in one
   * transaction: each used, or held as a jump. A pair whose jump of this day or later was held already
   * (waiting, accepted or refused) is not looked at again, so a refused jump is not held a second time.
   */
  private async store(feed: RateFeed, day: FeedDay): Promise<{ stored: number; held: string[] }> {
    const asOf = new Date(`${day.date}T00:00:00Z`);
    const now = this.s.now();
    const percent = this.s.config.rates.jumpPercent;
    return this.s.db.tx(async (t) => {
      const inUse = await t.any<{ quote: string; source: string; as_of: Date; rate: string }>('SELECT quote, source, as_of, rate::text AS rate FROM fx_rates WHERE base = $1', [PIVOT]);
      const byQuote = new Map(inUse.map((r) => [r.quote, r]));
      const judged = new Set((await t.any<{ quote: string }>('SELECT DISTINCT quote FROM fx_rate_jumps WHERE base = $1 AND as_of >= $2', [PIVOT, asOf])).map((r) => r.quote));
      const newer = Object.entries(day.rates).filter(([quote]) => {
        const h = byQuote.get(quote);
        return !judged.has(quote) && (!h || ((h.source === 'ecb' || h.source === 'frankfurter') && h.as_of < asOf));
      });
      const jumps = newer.filter(([quote, rate]) => byQuote.has(quote) && isJump(byQuote.get(quote)!.rate, rate, percent));
      const used = newer.filter((entry) => !jumps.includes(entry));
      // nothing newer (a weekend's repeat): no write, so the configuration version stays as it is
      let stored = 0;
      if (newer.length > 0) {
        // a newer day decides for the pair: a jump still waiting is closed, the day used or held in its place
        await t.none(
          "UPDATE fx_rate_jumps SET decision = 'superseded', decided_at = $3 WHERE base = $1 AND quote = ANY($2::text[]) AND decision IS NULL",
          [PIVOT, newer.map(([q]) => q), now],
        );
      }
      if (used.length > 0) {
        const r = await t.result(STORE_FEED_DAY, { pivot: PIVOT, source: feed, as_of: asOf, now, quotes: used.map(([q]) => q), rates: used.map(([, v]) => v) });
        stored = r.rowCount;
      }
      if (jumps.length > 0) await t.none(HOLD_JUMPS, { pivot: PIVOT, source: feed, as_of: asOf, now, quotes: jumps.map(([q]) => q), rates: jumps.map(([, v]) => v) });
      await t.none(
        `UPDATE rate_sources SET last_success_at = $2, last_error = NULL,
           last_as_of = GREATEST(last_as_of, $3::timestamptz) WHERE name = $1`,
        [feed, now, asOf],
      );
      return { stored, held: jumps.map(([q]) => q) };
    });
  }
}
