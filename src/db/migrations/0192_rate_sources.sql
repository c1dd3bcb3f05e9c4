-- Market rates with a source and an age (docs/contract/money.md, "Which wallet, and market rates"):
-- * fx_rates.source: who set the rate: a daily reference feed ('ecb', 'frankfurter'), the operator through
--   the admin API, or the sandbox's demo seed; rates set before this migration were the operator's.
-- * fx_rates.as_of: the time the rate is valid for: a feed's reference date (midnight UTC), or the time the
--   operator set it (for rates set before this migration, their last change).
-- * rate_sources: per feed, its last refresh attempt, last success and the error of the last failed attempt
--   (NULL after a success), for the operator and for the refresh worker's turn across processes.
ALTER TABLE fx_rates ADD COLUMN source TEXT NOT NULL DEFAULT 'operator' CHECK (source IN ('ecb', 'frankfurter', 'operator', 'sandbox'));
ALTER TABLE fx_rates ADD COLUMN as_of TIMESTAMPTZ;
UPDATE fx_rates SET as_of = updated_at;
ALTER TABLE fx_rates ALTER COLUMN as_of SET NOT NULL;
ALTER TABLE fx_rates ALTER COLUMN as_of SET DEFAULT now();

CREATE TABLE rate_sources (
  name TEXT PRIMARY KEY CHECK (name IN ('ecb', 'frankfurter')),
  last_attempt_at TIMESTAMPTZ,
  last_success_at TIMESTAMPTZ,
  -- the reference date of the newest rates the feed gave
  last_as_of TIMESTAMPTZ,
  last_error TEXT
);
INSERT INTO rate_sources (name) VALUES ('ecb'), ('frankfurter');
