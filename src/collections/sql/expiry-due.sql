-- PENDING collections past their deadline, locked (SKIP LOCKED), oldest deadline first, each with the
-- earliest provider report it received in time and has not applied yet (report_id NULL when none):
-- such a report is applied instead of the expiry, however far behind the report worker is. A collection
-- whose real processor has (or may have: a send in flight, 'sending') the request is left to reconciliation,
-- which asks it once more.
SELECT c.id, r.id AS report_id
FROM collections c
LEFT JOIN LATERAL (
  SELECT e.id FROM provider_events e
  WHERE e.collection_id = c.id AND e.processed_at IS NULL AND e.due_at <= c.expires_at
  ORDER BY e.due_at, e.id
  LIMIT 1
) r ON true
WHERE c.status = 'PENDING' AND c.expires_at <= ${now}
  AND NOT EXISTS (SELECT 1 FROM processor_requests p WHERE p.collection_id = c.id AND p.state IN ('sending', 'sent', 'unknown', 'held'))
ORDER BY c.expires_at, c.id
LIMIT ${limit}
FOR UPDATE OF c SKIP LOCKED
