-- The totals of one MID's day (UTC) on both sides (index.ts, items): what the processor reported (its
-- payments less its reversals, refunds and payouts) and what we recorded (the collections of the day's items
-- less its refunds and disbursements), per currency, and the number of items in each state.
SELECT i.state, count(*)::int AS items,
  COALESCE(sum(CASE WHEN l.kind IN ('reversal', 'refund', 'payout') THEN -i.theirs_minor ELSE i.theirs_minor END), 0)::bigint AS theirs_minor,
  COALESCE(sum(CASE WHEN i.state = 'reversed_externally' THEN 0 WHEN i.refund_id IS NOT NULL OR i.disbursement_id IS NOT NULL THEN -i.ours_minor ELSE i.ours_minor END), 0)::bigint AS ours_minor
FROM reconciliation_items i LEFT JOIN reconciliation_lines l ON l.id = i.line_id
WHERE i.mid_id = ${midId} AND i.day = ${day}::date
GROUP BY i.state
ORDER BY i.state
