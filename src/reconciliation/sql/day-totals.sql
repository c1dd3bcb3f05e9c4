-- The totals of one MID's day (UTC) on both sides (index.ts, dayTotals), per currency, and the number of
-- items in each state. The processor's side is what it reported (its payments less its reversals, refunds
-- and payouts), each line counted in its own currency; ours is what we recorded (the collections of the
-- day's items less their refunds and disbursements), counted in our currency (ours_currency). A
-- currency_mismatch item so counts its two amounts under two currencies: minor units of two currencies are
-- never added. One row per currency (state null), then one per state (currency null), read at once.
WITH items AS (
  SELECT i.state, i.theirs_currency, i.ours_currency,
    CASE WHEN l.kind IN ('reversal', 'refund', 'payout') THEN -i.theirs_minor ELSE i.theirs_minor END AS theirs_minor,
    CASE WHEN i.state = 'reversed_externally' THEN 0 WHEN i.refund_id IS NOT NULL OR i.disbursement_id IS NOT NULL THEN -i.ours_minor ELSE i.ours_minor END AS ours_minor
  FROM reconciliation_items i LEFT JOIN reconciliation_lines l ON l.id = i.line_id
  WHERE i.mid_id = ${midId} AND i.day = ${day}::date
), sides AS (
  SELECT theirs_currency AS currency, theirs_minor, 0::bigint AS ours_minor FROM items WHERE theirs_currency IS NOT NULL
  UNION ALL
  SELECT ours_currency, 0::bigint, ours_minor FROM items WHERE ours_currency IS NOT NULL
)
SELECT NULL::text AS state, NULL::int AS items, currency::text, sum(theirs_minor)::bigint AS theirs_minor, sum(ours_minor)::bigint AS ours_minor
FROM sides GROUP BY currency
UNION ALL
SELECT state, count(*)::int, NULL, NULL, NULL FROM items GROUP BY state
ORDER BY currency, state
