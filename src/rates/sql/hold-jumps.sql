-- A feed's day of rates held as jumps (src/rates/refresh.ts): each beside the rate in use it would replace,
-- which is kept in fx_rates and goes on converting (while current) until an operator decides (jumps.ts). Two
-- feeds holding the same pair at once (two processes): the first holds it, the other's is left out.
INSERT INTO fx_rate_jumps (base, quote, rate, source, as_of, previous_rate, previous_source, previous_as_of, held_at)
SELECT ${pivot}, u.quote, u.rate::numeric, ${source}, ${as_of}::timestamptz, f.rate, f.source, f.as_of, ${now}::timestamptz
FROM unnest(${quotes}::text[], ${rates}::text[]) AS u(quote, rate)
JOIN fx_rates f ON f.base = ${pivot} AND f.quote = u.quote
ON CONFLICT (base, quote) WHERE decision IS NULL DO NOTHING
