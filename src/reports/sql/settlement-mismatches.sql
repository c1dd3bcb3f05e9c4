-- Every request of the day (collections created in [${day_start}, ${day_end})) where the processor and
-- we disagree: it confirmed payment and the collection is not COMPLETED, or the collection is COMPLETED
-- without its confirmation. At most ${limit}, by processor, MID, then time.
SELECT c.gateway_reference, c.business_id, p.service_type, p.mid_id, p.reference AS processor_reference,
  p.amount_minor, p.currency, p.state AS request_state, p.confirmed_outcome, p.confirmed_at, c.status, c.created_at,
  CASE WHEN p.confirmed_outcome = 'COMPLETED' THEN 'confirmed_not_completed' ELSE 'completed_not_confirmed' END AS mismatch
FROM collections c
JOIN processor_requests p ON p.collection_id = c.id
WHERE c.created_at >= ${day_start} AND c.created_at < ${day_end}
  AND COALESCE(p.confirmed_outcome = 'COMPLETED', false) <> (c.status = 'COMPLETED')
ORDER BY p.service_type, p.mid_id, c.created_at, c.id
LIMIT ${limit}
