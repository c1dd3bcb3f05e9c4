-- Refunds due to be sent to their processor, claimed for a lease (next_send_at pushed past the calls'
-- deadlines), so another process or a later run sends one whose worker died, after the lease, under the
-- same reference. With what the send needs: the collection as it was sent, the MID's sealed credentials.
WITH due AS (
  SELECT id FROM refunds WHERE next_send_at <= ${now} ORDER BY next_send_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE refunds r SET next_send_at = ${leaseEnd}, send_attempts = r.send_attempts + 1
FROM due, collections c
LEFT JOIN processor_requests p ON p.collection_id = c.id
LEFT JOIN mids m ON m.id = c.mid_id
WHERE r.id = due.id AND c.id = r.collection_id
RETURNING r.*, c.gateway_reference AS collection_gateway_reference, c.request_amount_minor AS collection_amount_minor,
  c.account_number, p.reference AS original_reference, p.vendor_reference AS original_vendor_reference, m.credentials_enc
