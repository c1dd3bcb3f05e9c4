-- A processor's callback about a payout, found by its unguessable token: a prompt to ask the processor
-- now (also about a COMPLETED one: the callback may report a reversal). It may only fill in the
-- processor's own id of the payout; known_vendor_reference is the id it had before this callback (a
-- result the callback carries counts only when it names that one). Nothing when no disbursement of this
-- service type has the token.
WITH before AS (
  SELECT id, vendor_reference FROM disbursements WHERE callback_token = ${callbackToken} AND service_type = ${serviceType} FOR UPDATE
)
UPDATE disbursements d SET
  next_check_at = CASE WHEN d.send_state IN ('sent', 'unknown') OR d.status = 'COMPLETED' THEN LEAST(COALESCE(d.next_check_at, ${now}), ${now}) ELSE d.next_check_at END,
  vendor_reference = COALESCE(d.vendor_reference, ${vendorReference})
FROM before
WHERE d.id = before.id
RETURNING d.id, d.status, before.vendor_reference AS known_vendor_reference
