-- The overview's collections since ${from} day by day (UTC), by payment method and currency, of one business
-- or of all (${business_id} null): how many, how many completed, how many final, and the completed amount;
-- the numbers of the chart of volume and success rate over time, and (summed in overview.ts) of today's and
-- the 30 days' per method and currency. Read through the newest-first indexes (collections_business_newest,
-- collections_newest) by created_at.
SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, payment_method, request_currency AS currency,
  count(*)::int AS collections,
  (count(*) FILTER (WHERE status = 'COMPLETED'))::int AS completed,
  (count(*) FILTER (WHERE status <> 'PENDING'))::int AS final,
  COALESCE(sum(request_amount_minor) FILTER (WHERE status = 'COMPLETED'), 0)::bigint AS volume_minor
FROM collections
WHERE created_at >= ${from} AND (${business_id}::int IS NULL OR business_id = ${business_id})
GROUP BY 1, payment_method, request_currency
ORDER BY 1, payment_method, request_currency
