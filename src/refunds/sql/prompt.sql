-- A processor's callback about a refund, found by its unguessable token: a prompt to ask the processor
-- now. It may only fill in the processor's own id of the refund; known_vendor_reference is the id the
-- send was given before this callback (a result the callback carries counts only when it names that
-- one). Nothing when no refund of this service type has the token.
WITH before AS (
  SELECT id, vendor_reference FROM refunds WHERE callback_token = ${callbackToken} AND service_type = ${serviceType} FOR UPDATE
)
UPDATE refunds r SET
  next_check_at = CASE WHEN r.send_state IN ('sent', 'unknown') THEN LEAST(COALESCE(r.next_check_at, ${now}), ${now}) ELSE r.next_check_at END,
  vendor_reference = COALESCE(r.vendor_reference, ${vendorReference})
FROM before
WHERE r.id = before.id
RETURNING r.id, r.status, before.vendor_reference AS known_vendor_reference
