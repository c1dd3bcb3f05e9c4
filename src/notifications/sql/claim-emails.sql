-- The email worker's claim: up to ${limit} emails due by ${now}, oldest due first, leased to this process
-- (${processId}) until ${leaseEnd}. A claimed email is no longer marked unreachable (its outcome marks it
-- again), so a reset never touches one under way.
WITH due AS (
  SELECT id FROM emails
  WHERE sent_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= ${now}
  ORDER BY next_attempt_at, id
  LIMIT ${limit}
  FOR UPDATE SKIP LOCKED
)
UPDATE emails e SET next_attempt_at = ${leaseEnd}, smtp_unreachable = false, claimed_by = ${processId} FROM due WHERE e.id = due.id
RETURNING e.id, e.kind, e.recipient, e.subject, e.text_body
