-- Money we recorded that the processor has not reported (docs/reconciliation.md, "Matching"): a COMPLETED
-- collection of the MID, made within the period its statements cover, older than the MID's deadline (T+3
-- days unless set), with no payment line of any statement (by any reference a line finds it by: the
-- receipt, our reference at the processor, or the processor's reference of it, as match-lines.sql). One
-- item per collection, however often this runs; a line that arrives later is matched on its own and leaves
-- the decided item as it is.
WITH covered AS (
  SELECT s.mid_id, min(s.first_at) AS first_at, max(s.last_at) AS last_at
  FROM reconciliation_statements s WHERE s.mid_id = ${midId} AND s.first_at IS NOT NULL
  GROUP BY s.mid_id
), deadline AS (
  -- statements give times to the second, so the last line's second is covered whole: a record of ours made in
  -- it after the time the line shows is inside the period
  SELECT cv.mid_id, cv.first_at, least(date_trunc('second', cv.last_at) + interval '1 second', ${now}::timestamptz - make_interval(days => COALESCE(st.theirs_missing_days, 3))) AS until_
  FROM covered cv LEFT JOIN reconciliation_settings st ON st.mid_id = cv.mid_id
)
INSERT INTO reconciliation_items (mid_id, business_id, day, state, collection_id, reference, ours_minor, ours_currency, created_at)
SELECT pr.mid_id, c.business_id, (c.created_at AT TIME ZONE 'UTC')::date, 'theirs_missing', c.id,
  COALESCE(pr.receipt, pr.reference), pr.amount_minor, pr.currency, ${now}
FROM deadline d
JOIN processor_requests pr ON pr.mid_id = d.mid_id
JOIN collections c ON c.id = pr.collection_id
WHERE c.status = 'COMPLETED' AND c.created_at >= d.first_at AND c.created_at < d.until_
  -- one test per reference (not one OR of both): each is an anti-join on the lines' (mid_id, reference), not
  -- a scan of the MID's lines per collection
  AND NOT EXISTS (SELECT FROM reconciliation_lines l WHERE l.mid_id = pr.mid_id AND l.kind = 'payment' AND l.reference = pr.receipt)
  AND NOT EXISTS (SELECT FROM reconciliation_lines l WHERE l.mid_id = pr.mid_id AND l.kind = 'payment' AND l.reference = pr.reference)
  AND NOT EXISTS (SELECT FROM reconciliation_lines l WHERE l.mid_id = pr.mid_id AND l.kind = 'payment' AND l.reference = pr.vendor_reference)
ORDER BY c.id
ON CONFLICT (collection_id) WHERE state = 'theirs_missing' DO NOTHING
