-- Refunds due a send (clock next_send_at, counter send_attempts) or a status query (next_check_at,
-- checks), claimed for a lease: the clock is pushed past the calls' deadlines, so no two processes call
-- at once. A send's claim marks a queued request 'sending' before any call; was_sending says the claim
-- found it so already: its last worker died with the call perhaps at the processor, and the caller reads
-- it as an unknown outcome (a status query first), never sends it blind. With what the call needs: the
-- collection as it was sent (with the receipt its callback gave), the MID's sealed credentials.
WITH due AS (
  SELECT id, send_state FROM refunds WHERE ${clock:name} <= ${now} ORDER BY ${clock:name}, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE refunds r SET ${clock:name} = ${leaseEnd}, ${counter:name} = r.${counter:name} + 1,
  send_state = CASE WHEN ${send} AND r.status = 'PENDING' AND r.send_state = 'queued' THEN 'sending' ELSE r.send_state END
FROM due, collections c
LEFT JOIN processor_requests p ON p.collection_id = c.id
LEFT JOIN mids m ON m.id = c.mid_id
WHERE r.id = due.id AND c.id = r.collection_id
RETURNING r.*, ${send} AND due.send_state = 'sending' AS was_sending,
  c.gateway_reference AS collection_gateway_reference, c.request_amount_minor AS collection_amount_minor,
  c.account_number, p.reference AS original_reference, p.vendor_reference AS original_vendor_reference,
  p.receipt AS original_receipt, m.credentials_enc
