// The operator's side of market rates (docs/operations.md, "Market rates"): what they watch (each pair's
// rate in use, its age and staleness, the jump held for it; each feed's last refresh), and their decision,
// once, on a jump the refresh held (refresh.ts): accepted, the held rate becomes the rate in use through
// the one writer of fx_rates (writes.ts); refused, it is discarded. Who decided and when stay on the jump.
import type { Base } from '../base';
import { AppError } from '../errors';
import { ageSeconds, isCurrent } from '../domain/rate-age';
import { apiTime } from '../domain/time';
import type { RateSource } from '../domain/fx';
import { fxRateJumpRecord, rateFeedStatus } from '../api-records/rates';
import type { FxRateJumpRecord, FxRateJumpRow, FxRateWatchRecord, RateSourceRecordRow } from '../api-records/rates';
import { useAcceptedRate } from './writes';

export type JumpDecision = 'accepted' | 'refused';

interface PairRow {
  base: string;
  quote: string;
  rate: string;
  source: RateSource;
  as_of: Date;
  updated_at: Date;
}

export class RateJumps {
  constructor(private readonly s: Base) {}

  async watch(): Promise<FxRateWatchRecord> {
    const now = this.s.now();
    const [pairs, held, feeds] = await Promise.all([
      this.s.db.any<PairRow>('SELECT base, quote, rate::text AS rate, source, as_of, updated_at FROM fx_rates ORDER BY base, quote'),
      this.s.db.any<FxRateJumpRow>('SELECT * FROM fx_rate_jumps WHERE decision IS NULL'),
      this.s.db.any<RateSourceRecordRow>('SELECT name, last_attempt_at, last_success_at, last_as_of, last_error FROM rate_sources ORDER BY name'),
    ]);
    const jumps = new Map(held.map((j) => [`${j.base}/${j.quote}`, fxRateJumpRecord(j)]));
    return {
      pairs: pairs.map((p) => ({
        base: p.base,
        quote: p.quote,
        rate: Number(p.rate),
        source: p.source,
        as_of: apiTime(p.as_of),
        updated_at: apiTime(p.updated_at),
        age_seconds: ageSeconds(p.as_of, now),
        stale: !isCurrent(p.source, p.as_of, now, this.s.config.rates.maxAges),
        held_jump: jumps.get(`${p.base}/${p.quote}`) ?? null,
      })),
      feeds: feeds.map((f) => rateFeedStatus(f, this.s.config.rates.feeds.includes(f.name))),
    };
  }

  /**
   * The operator's decision on the pair's held jump, once. `rate` is the held rate as they saw it: another
   * (a newer day held in its place) or none waiting is INVALID_STATE, and nothing changes. Two decisions at
   * once: the row's update takes one, and the other finds nothing waiting.
   */
  async decide(base: string, quote: string, decision: JumpDecision, rate: number, by: string): Promise<FxRateJumpRecord> {
    return this.s.db.tx(async (t) => {
      const known = await t.oneOrNone('SELECT 1 FROM fx_rates WHERE base = $1 AND quote = $2', [base, quote]);
      if (!known) throw new AppError('NOT_FOUND', `There is no market rate for ${base}/${quote}`);
      const now = this.s.now();
      const jump = await t.oneOrNone<FxRateJumpRow>(
        `UPDATE fx_rate_jumps SET decision = $3, decided_by = $4, decided_at = $5
          WHERE base = $1 AND quote = $2 AND decision IS NULL AND rate = $6::numeric RETURNING *`,
        [base, quote, decision, by, now, rate.toFixed(12)],
      );
      if (!jump) {
        const waiting = await t.oneOrNone<{ rate: string }>('SELECT rate::text AS rate FROM fx_rate_jumps WHERE base = $1 AND quote = $2 AND decision IS NULL', [base, quote]);
        throw new AppError(
          'INVALID_STATE',
          waiting
            ? `The jump held for ${base}/${quote} is ${Number(waiting.rate)}, not ${rate}: look at it again before deciding`
            : `No jump of ${base}/${quote} waits for a decision: it was never held, or was already decided or superseded`,
        );
      }
      if (decision === 'accepted') await useAcceptedRate(t, jump, now);
      return fxRateJumpRecord(jump);
    });
  }
}
