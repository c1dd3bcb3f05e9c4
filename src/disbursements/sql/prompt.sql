-- A processor's callback about a payout, found by its unguessable token: a prompt to ask the processor
-- now (also about a COMPLETED one: the callback may report a reversal). It may only fill in the
-- processor's own id of the payout. Nothing when no disbursement of this service type has the token.
UPDATE disbursements d SET
  next_check_at = CASE WHEN d.send_state IN ('sent', 'unknown') OR d.status = 'COMPLETED' THEN LEAST(COALESCE(d.next_check_at, ${now}), ${now}) ELSE d.next_check_at END,
  vendor_reference = COALESCE(d.vendor_reference, ${vendorReference})
WHERE d.callback_token = ${callbackToken} AND d.service_type = ${serviceType}
RETURNING d.id
