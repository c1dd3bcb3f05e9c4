-- What we recorded that the processor has not reported (docs/reconciliation.md, "Matching"), within the
-- period the MID's statements cover and older than its deadline (T+3 days unless set):
-- - a COMPLETED collection with no payment line of any statement by any reference matching finds it by;
-- - a COMPLETED refund or disbursement that no item names (no line was matched with it).
-- One item per collection, refund and disbursement, however often this runs; a line that arrives later is
-- matched on its own and leaves the decided item as it is. Answers how many items it made.
WITH covered AS (
  SELECT s.mid_id, min(s.first_at) AS first_at, max(s.last_at) AS last_at
  FROM reconciliation_statements s WHERE s.mid_id = ${midId} AND s.first_at IS NOT NULL
  GROUP BY s.mid_id
), deadline AS (
  -- statements give times to the second, so the last line's second is covered whole: a record of ours made in
  -- it after the time the line shows is inside the period
  SELECT cv.mid_id, cv.first_at, least(date_trunc('second', cv.last_at) + interval '1 second', ${now}::timestamptz - make_interval(days => COALESCE(st.theirs_missing_days, 3))) AS until_
  FROM covered cv LEFT JOIN reconciliation_settings st ON st.mid_id = cv.mid_id
), collections_ AS (
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
  RETURNING 1
), out_ AS (
  SELECT r.mid_id, r.business_id, r.created_at, r.id AS refund_id, NULL::bigint AS disbursement_id, r.reference, r.amount_minor, r.currency
  FROM deadline d JOIN refunds r ON r.mid_id = d.mid_id
  WHERE r.status = 'COMPLETED' AND r.created_at >= d.first_at AND r.created_at < d.until_
    AND NOT EXISTS (SELECT FROM reconciliation_items i WHERE i.refund_id = r.id)
  UNION ALL
  SELECT x.mid_id, x.business_id, x.created_at, NULL, x.id, x.reference, x.amount_minor, x.currency
  FROM deadline d JOIN disbursements x ON x.mid_id = d.mid_id
  WHERE x.status = 'COMPLETED' AND x.created_at >= d.first_at AND x.created_at < d.until_
    AND NOT EXISTS (SELECT FROM reconciliation_items i WHERE i.disbursement_id = x.id)
), money_out AS (
  INSERT INTO reconciliation_items (mid_id, business_id, day, state, refund_id, disbursement_id, reference, ours_minor, ours_currency, created_at)
  SELECT o.mid_id, o.business_id, (o.created_at AT TIME ZONE 'UTC')::date, 'theirs_missing', o.refund_id, o.disbursement_id,
    o.reference, o.amount_minor, o.currency, ${now}
  FROM out_ o
  ORDER BY o.refund_id NULLS LAST, o.disbursement_id
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT (SELECT count(*) FROM collections_)::int + (SELECT count(*) FROM money_out)::int AS made
