-- Jumps held for the operator (src/rates/jumps.ts, docs/operations.md "Market rates"): a feed's new rate for a
-- pair that moves more than RATE_JUMP_PERCENT from the feed rate in use is kept here, not in fx_rates, with
-- the rate it would replace, until an operator accepts it (it becomes the rate in use) or refuses it. A newer
-- day of the feeds for the pair closes a held jump as 'superseded' (used, or held again in its own row).
-- At most one jump per pair waits for a decision; a decided one keeps who decided and when.
CREATE TABLE fx_rate_jumps (
  id BIGSERIAL PRIMARY KEY,
  base CHAR(3) NOT NULL,
  quote CHAR(3) NOT NULL,
  rate NUMERIC(30, 12) NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('ecb', 'frankfurter')),
  as_of TIMESTAMPTZ NOT NULL,
  previous_rate NUMERIC(30, 12) NOT NULL,
  previous_source TEXT NOT NULL,
  previous_as_of TIMESTAMPTZ NOT NULL,
  held_at TIMESTAMPTZ NOT NULL,
  decision TEXT CHECK (decision IN ('accepted', 'refused', 'superseded')),
  decided_by TEXT,
  decided_at TIMESTAMPTZ,
  CHECK ((decision IS NULL) = (decided_at IS NULL))
);
CREATE UNIQUE INDEX fx_rate_jumps_held ON fx_rate_jumps (base, quote) WHERE decision IS NULL;
CREATE INDEX fx_rate_jumps_pair ON fx_rate_jumps (base, quote, as_of);
