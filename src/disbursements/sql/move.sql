-- The one path by which a disbursement changes state (docs/contract/disbursements.md): only from a state
-- in ${from}, taking the next notification sequence when an API token asked for it; its request to the
-- processor is queued, settled or checked as ${sendState} / ${nextSendAt} / ${nextCheckAt} say. Returns
-- nothing when the disbursement is no longer in one of those states (a repeat or a late report). Leaving
-- PENDING_APPROVAL records when, and (${decidedBy}, NULL for the timeout) who, decided; an approval
-- (${approvedAt} set) moves only while the approval deadline is after it, so nothing is approved late.
-- The change is kept for the timeline in the same statement, with its notification's sequence when there
-- is one.
WITH moved AS (
  UPDATE disbursements d SET status = ${to}, pending_reason = ${pendingReason}, failure_reason = ${failureReason}, message = ${message},
    updated_at = ${now}, notification_seq = d.notification_seq + CASE WHEN d.api_token_id IS NULL THEN 0 ELSE 1 END,
    vendor_reference = COALESCE(${vendorReference}, d.vendor_reference),
    send_state = ${sendState}, next_send_at = ${nextSendAt}, next_check_at = ${nextCheckAt}, last_error = NULL, claimed_by = NULL,
    decided_by_user_id = COALESCE(${decidedBy}, d.decided_by_user_id),
    decided_at = CASE WHEN d.status = 'PENDING_APPROVAL' THEN ${now} ELSE d.decided_at END
  WHERE d.id = ${disbursementId} AND d.status = ANY(${from}::text[])
    AND (${approvedAt}::timestamptz IS NULL OR d.approval_expires_at > ${approvedAt}::timestamptz)
  RETURNING d.*
), kept AS (
  INSERT INTO disbursement_state_changes (disbursement_id, status, at, notification_sequence)
  SELECT m.id, m.status, ${now}::timestamptz, CASE WHEN m.api_token_id IS NULL THEN NULL ELSE m.notification_seq END
  FROM moved m
)
SELECT * FROM moved
