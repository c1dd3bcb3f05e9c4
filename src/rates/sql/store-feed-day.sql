-- A feed's day of rates (src/rates/refresh.ts): 1 ${pivot} (EUR, the feeds' base) = rate units of each quote, valid for as_of (the
-- reference date). A pair's row is replaced only by a newer day of a feed: never an operator's or the
-- sandbox's rate, and never by an older or the same day (so a second feed with the same day, or a weekend's
-- repeat of Friday, changes nothing). The caller writes only what it found newer; the guard settles a race.
INSERT INTO fx_rates (base, quote, rate, source, as_of, updated_at)
SELECT ${pivot}, u.quote, u.rate::numeric, ${source}, ${as_of}::timestamptz, ${now}::timestamptz
FROM unnest(${quotes}::text[], ${rates}::text[]) AS u(quote, rate)
ON CONFLICT (base, quote) DO UPDATE
  SET rate = EXCLUDED.rate, source = EXCLUDED.source, as_of = EXCLUDED.as_of, updated_at = EXCLUDED.updated_at
  WHERE fx_rates.source IN ('ecb', 'frankfurter') AND fx_rates.as_of < EXCLUDED.as_of
