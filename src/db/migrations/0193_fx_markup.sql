-- A business's FX markup, visible on every converted collection (docs/contract/money.md, "Which wallet, and
-- market rates"): businesses.fx_markup_percent (set by the operator, 0 by default) is taken off the reference
-- rate, and a converted collection keeps what it was converted at: the reference rate, the markup as the
-- difference applied - reference (fx_rate stays the applied rate), the reference rate's source and as_of.
-- Collections before this migration converted without markup at the rate in fx_rate.
ALTER TABLE businesses ADD COLUMN fx_markup_percent NUMERIC(5, 2) NOT NULL DEFAULT 0 CHECK (fx_markup_percent >= 0 AND fx_markup_percent < 100);
ALTER TABLE collections ADD COLUMN fx_reference_rate NUMERIC(30, 12);
ALTER TABLE collections ADD COLUMN fx_markup NUMERIC(31, 12);
ALTER TABLE collections ADD COLUMN fx_source TEXT;
ALTER TABLE collections ADD COLUMN fx_as_of TIMESTAMPTZ;
