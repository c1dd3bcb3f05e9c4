-- Requests due a status query (reconciliation), claimed for a lease: next_check_at pushed past the calls'
-- deadlines, so no two processes ask at once. With what the call needs of the collection and the MID's
-- sealed credentials.
WITH due AS (
  SELECT collection_id FROM processor_requests WHERE next_check_at <= ${now}
  ORDER BY next_check_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE processor_requests p SET next_check_at = ${leaseEnd}, checks = p.checks + 1, updated_at = ${now}
FROM due, collections c, mids m
WHERE p.collection_id = due.collection_id AND c.id = p.collection_id AND m.id = p.mid_id
RETURNING p.collection_id, p.mid_id, p.service_type, p.reference, p.callback_token, p.amount_minor, p.currency,
  p.vendor_reference, p.state, p.send_attempts, p.checks, p.reported_amount_minor, p.reported_currency,
  c.status AS collection_status, c.gateway_reference, c.account_number, c.narration, c.expires_at, c.card_masked,
  m.credentials_enc, p.trace_parent
