-- A disbursement's request to its processor after a send or a status query that did not change its
-- state: when it is sent or asked next, what went wrong, (while PENDING) what it waits for, and the
-- processor's id when a query found it by our reference; the claim let go. A settled request stays settled:
-- a late answer for a payout a callback settled while the query was under way leaves nothing due (a final
-- payout is not asked about again), while a completed payout's prompted query (watched for a reversal)
-- is recorded as it says.
UPDATE disbursements SET send_state = CASE WHEN send_state = 'settled' THEN 'settled' ELSE ${sendState}::text END,
  next_send_at = CASE WHEN send_state = 'settled' THEN NULL ELSE ${nextSendAt}::timestamptz END,
  next_check_at = CASE WHEN send_state = 'settled' AND ${sendState}::text <> 'settled' THEN NULL ELSE ${nextCheckAt}::timestamptz END,
  last_error = ${lastError}, vendor_reference = COALESCE(${vendorReference}, vendor_reference),
  pending_reason = CASE WHEN status = 'PENDING' THEN ${pendingReason} ELSE pending_reason END, claimed_by = NULL
WHERE id = ${disbursementId}
