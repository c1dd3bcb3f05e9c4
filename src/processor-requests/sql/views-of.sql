-- What the operator sees of these collections' requests to their processors.
SELECT collection_id, service_type, reference, vendor_reference, state, send_attempts, checks, last_error,
  held_reason, resolved_outcome, resolution_note, resolved_by, resolved_at
FROM processor_requests
WHERE collection_id = ANY(${ids}::bigint[])
