-- The settlement report's totals of one UTC day, per processor, MID and currency: the requests to real
-- processors of the collections created that day, what the processor confirmed (its own final word,
-- processor_requests.confirmed_outcome), what we completed and credited (the credit journal), the fees,
-- and how many disagree (settlement-mismatches.sql lists them).
SELECT p.service_type, p.mid_id, p.currency, c.account_currency,
  count(*)::int AS requests,
  count(*) FILTER (WHERE p.confirmed_outcome = 'COMPLETED')::int AS confirmed_count,
  COALESCE(SUM(p.amount_minor) FILTER (WHERE p.confirmed_outcome = 'COMPLETED'), 0)::bigint AS confirmed_minor,
  count(*) FILTER (WHERE p.confirmed_outcome IN ('FAILED', 'CANCELLED'))::int AS declined_count,
  count(*) FILTER (WHERE c.status = 'COMPLETED')::int AS completed_count,
  COALESCE(SUM(p.amount_minor) FILTER (WHERE c.status = 'COMPLETED'), 0)::bigint AS completed_minor,
  COALESCE(SUM(c.total_credit_minor) FILTER (WHERE j.id IS NOT NULL), 0)::bigint AS credited_minor,
  COALESCE(SUM(c.fee_minor) FILTER (WHERE j.id IS NOT NULL), 0)::bigint AS fee_minor,
  count(*) FILTER (WHERE COALESCE(p.confirmed_outcome = 'COMPLETED', false) <> (c.status = 'COMPLETED'))::int AS mismatches
FROM collections c
JOIN processor_requests p ON p.collection_id = c.id
LEFT JOIN journals j ON j.collection_id = c.id AND j.kind = 'collection_credit'
WHERE c.created_at >= ${day_start} AND c.created_at < ${day_end}
GROUP BY p.service_type, p.mid_id, p.currency, c.account_currency
ORDER BY p.service_type, p.mid_id, p.currency, c.account_currency
