-- One collection's request, claimed for a status query now, with a lease as claim-checks.sql takes. It waits
-- for a concurrent claim or prompt (a webhook arriving with the customer) rather than skip: the customer's
-- query must run, even when a worker's runs too (both only ever apply the processor's answer once).
WITH due AS (
  SELECT collection_id FROM processor_requests WHERE collection_id = ${collectionId} AND state IN ('sent', 'unknown')
  FOR UPDATE
)
UPDATE processor_requests p SET next_check_at = ${leaseEnd}, checks = p.checks + 1, updated_at = ${now}
FROM due, collections c, mids m
WHERE p.collection_id = due.collection_id AND c.id = p.collection_id AND m.id = p.mid_id
RETURNING p.collection_id, p.mid_id, p.service_type, p.reference, p.callback_token, p.amount_minor, p.currency,
  p.vendor_reference, p.state, p.send_attempts, p.checks, p.reported_amount_minor, p.reported_currency,
  c.status AS collection_status, c.gateway_reference, c.account_number, c.narration, c.expires_at, c.card_masked,
  m.credentials_enc, p.trace_parent
