// The rates wing writes fx_rates, whoever sets a rate: a daily feed (refresh.ts, sql/store-feed-day.sql, or a jump the operator accepted, jumps.ts), the
// operator through the admin API (merchants/fx-rates.ts asks here), or the sandbox's demo seed. Each says its
// source, and the time the rate is valid for is the time it was set.
import type { Queryable } from '../db';
import type { FxRateRow } from '../api-records/merchant';

/** An operator's rate for the pair, set now: it replaces whatever rate the pair had, a feed's included. */
export function setOperatorRate(q: Pick<Queryable, 'one'>, base: string, quote: string, rate: string, now: Date): Promise<FxRateRow> {
  return q.one<FxRateRow>(
    `INSERT INTO fx_rates (base, quote, rate, updated_at, source, as_of) VALUES ($1, $2, $3, $4, 'operator', $4)
     ON CONFLICT (base, quote) DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at, source = 'operator', as_of = EXCLUDED.as_of
     RETURNING *`,
    [base, quote, rate, now],
  );
}

/** The sandbox's demo rate for the pair, unless the pair has one already. */
export function seedSandboxRate(q: Pick<Queryable, 'none'>, base: string, quote: string, rate: string, now: Date): Promise<null> {
  return q.none("INSERT INTO fx_rates (base, quote, rate, updated_at, source, as_of) VALUES ($1, $2, $3, $4, 'sandbox', $4) ON CONFLICT DO NOTHING", [base, quote, rate, now]);
}

/** A held jump the operator accepted (jumps.ts): the feed's rate, with its source and as_of, becomes the pair's rate in use. */
export function useAcceptedRate(q: Pick<Queryable, 'none'>, jump: { base: string; quote: string; rate: string; source: string; as_of: Date }, now: Date): Promise<null> {
  return q.none(
    `INSERT INTO fx_rates (base, quote, rate, updated_at, source, as_of) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (base, quote) DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at, source = EXCLUDED.source, as_of = EXCLUDED.as_of`,
    [jump.base, jump.quote, jump.rate, now, jump.source, jump.as_of],
  );
}
