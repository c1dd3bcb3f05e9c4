-- The operator's overview: collections since ${from} per processor and MID, with how many completed, how
-- many are final and the completed amount per currency (of one business, or all when ${business_id} is null).
SELECT m.service_type, c.mid_id, m.business_id, c.request_currency AS currency,
  count(*)::int AS collections,
  (count(*) FILTER (WHERE c.status = 'COMPLETED'))::int AS completed,
  (count(*) FILTER (WHERE c.status <> 'PENDING'))::int AS final,
  COALESCE(sum(c.request_amount_minor) FILTER (WHERE c.status = 'COMPLETED'), 0)::bigint AS volume_minor
FROM collections c JOIN mids m ON m.id = c.mid_id
WHERE c.created_at >= ${from} AND (${business_id}::int IS NULL OR c.business_id = ${business_id})
GROUP BY m.service_type, c.mid_id, m.business_id, c.request_currency
ORDER BY m.service_type, c.mid_id, c.request_currency
