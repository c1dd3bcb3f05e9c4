-- Collections' requests due a send, claimed for a lease (next_send_at pushed past the calls' deadlines, so
-- no two processes send at once) and, when still to be sent, marked 'sending' before any call. was_sending
-- says the claim found the mark already: the last worker died with its call perhaps at the processor, and
-- the caller reads it as an unknown outcome (a status query first), never sends it blind. With what the
-- call needs of the collection and the MID's sealed credentials.
WITH due AS (
  SELECT collection_id, state FROM processor_requests WHERE next_send_at <= ${now}
  ORDER BY next_send_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE processor_requests p SET next_send_at = ${leaseEnd}, send_attempts = p.send_attempts + 1, updated_at = ${now},
  state = CASE WHEN p.state = 'queued' AND c.status = 'PENDING' THEN 'sending' ELSE p.state END
FROM due, collections c, mids m
WHERE p.collection_id = due.collection_id AND c.id = p.collection_id AND m.id = p.mid_id
RETURNING p.collection_id, p.mid_id, p.service_type, p.reference, p.callback_token, p.amount_minor, p.currency,
  p.vendor_reference, p.state, p.send_attempts, p.checks, p.reported_amount_minor, p.reported_currency,
  c.status AS collection_status, c.gateway_reference, c.account_number, c.narration, c.expires_at, c.card_masked,
  m.credentials_enc, p.trace_parent, due.state = 'sending' AS was_sending
