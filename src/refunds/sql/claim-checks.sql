-- Refunds due a status query, claimed for a lease (next_check_at pushed past the calls'
-- deadlines), so no two processes ask at once and a query whose worker died is asked again after it.
-- With what the query needs: the MID's sealed credentials.
WITH due AS (
  SELECT id FROM refunds WHERE next_check_at <= ${now} ORDER BY next_check_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE refunds r SET next_check_at = ${leaseEnd}, checks = r.checks + 1
FROM due, collections c
LEFT JOIN processor_requests p ON p.collection_id = c.id
LEFT JOIN mids m ON m.id = c.mid_id
WHERE r.id = due.id AND c.id = r.collection_id
RETURNING r.*, c.gateway_reference AS collection_gateway_reference, c.request_amount_minor AS collection_amount_minor,
  c.account_number, p.reference AS original_reference, p.vendor_reference AS original_vendor_reference, m.credentials_enc
