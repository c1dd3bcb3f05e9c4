-- A disbursement's request to its processor after a send or a status query that did not change its
-- state: when it is sent or asked next, what went wrong, (while PENDING) what it waits for, and the
-- processor's id when a query found it by our reference; the claim let go. Nothing for a disbursement settled
-- meanwhile (a callback moved it to a final state while a send or query was under way): a final payout is never
-- asked about again.
UPDATE disbursements SET send_state = ${sendState}, next_send_at = ${nextSendAt}, next_check_at = ${nextCheckAt}, last_error = ${lastError},
  vendor_reference = COALESCE(${vendorReference}, vendor_reference),
  pending_reason = CASE WHEN status = 'PENDING' THEN ${pendingReason} ELSE pending_reason END, claimed_by = NULL
WHERE id = ${disbursementId} AND send_state <> 'settled'
