-- Folds the per-session slots of the days before ${today} (a UTC day) into slot 0, in one statement so
-- every count stays exact while it runs; answers how many slot rows it folded.
WITH gone AS (DELETE FROM collection_counts WHERE day < ${today}::date AND slot <> 0 RETURNING *),
kept AS (INSERT INTO collection_counts AS k (business_id, day, status, payment_method, request_currency, slot, n)
  SELECT business_id, day, status, payment_method, request_currency, 0, SUM(n) FROM gone
  GROUP BY business_id, day, status, payment_method, request_currency ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (business_id, day, status, payment_method, request_currency, slot) DO UPDATE SET n = k.n + EXCLUDED.n)
SELECT count(*)::int AS folded FROM gone
