-- A collection's charge after a send or a status query (engine.ts): its state and clocks, what went wrong,
-- the processor's id when an answer gave one, the check count started afresh once the processor has it,
-- why it is held for the operator; and the claim let go.
UPDATE processor_requests SET state = ${state}, next_send_at = ${nextSendAt}, next_check_at = ${nextCheckAt}, last_error = ${lastError},
  vendor_reference = COALESCE(${vendorReference}, vendor_reference),
  checks = CASE WHEN ${resetChecks} THEN 0 ELSE checks END,
  held_reason = COALESCE(${heldReason}, held_reason),
  claimed_by = NULL, updated_at = ${now}
WHERE collection_id = ${id}
