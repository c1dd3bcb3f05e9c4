-- A refund's request to its processor after a send or a status query that did not change the refund's
-- state: when it is sent or asked next, what went wrong, (while PENDING) what it waits for, and the
-- processor's id and claim link when a query found it by our reference; the claim let go. Nothing for a refund held for an
-- operator meanwhile (a send or query that was under way when the hold came): it stays held, neither sent
-- nor asked about again, until the operator decides. Nothing either for a refund settled meanwhile (a
-- callback moved it to a final state while a query was under way): a final refund is never asked about again.
UPDATE refunds SET send_state = ${sendState}, next_send_at = ${nextSendAt}, next_check_at = ${nextCheckAt}, last_error = ${lastError},
  vendor_reference = COALESCE(${vendorReference}, vendor_reference), claim_url = COALESCE(${claimUrl}, claim_url),
  pending_reason = CASE WHEN status = 'PENDING' THEN ${pendingReason} ELSE NULL END, claimed_by = NULL
WHERE id = ${refundId} AND send_state NOT IN ('held', 'settled')
