-- A processor's callback about a refund, found by its unguessable token: a prompt to ask the processor
-- now (never proof by itself). It may only fill in the processor's own id of the refund. Nothing when
-- no refund of this service type has the token.
UPDATE refunds SET
  next_check_at = CASE WHEN send_state IN ('sent', 'unknown') THEN LEAST(COALESCE(next_check_at, ${now}), ${now}) ELSE next_check_at END,
  vendor_reference = COALESCE(vendor_reference, ${vendorReference})
WHERE callback_token = ${callbackToken} AND service_type = ${serviceType}
RETURNING id
