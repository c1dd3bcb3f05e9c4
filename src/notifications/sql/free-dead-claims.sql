-- The webhook and email claims of processes whose heartbeat is stale (or that never beat), freed: due at
-- once, for any live process to take (workers/liveness.ts runs this after each beat). Returns how many.
WITH alive AS (
  SELECT id FROM worker_processes WHERE heartbeat_at >= ${staleBefore}
),
webhooks AS (
  UPDATE notifications SET next_attempt_at = ${now}, claimed_by = NULL
  WHERE claimed_by IS NOT NULL AND claimed_by <> ${self} AND claimed_by NOT IN (SELECT id FROM alive)
    AND delivered_at IS NULL AND gave_up_at IS NULL
  RETURNING 1
),
emails AS (
  UPDATE emails SET next_attempt_at = ${now}, claimed_by = NULL
  WHERE claimed_by IS NOT NULL AND claimed_by <> ${self} AND claimed_by NOT IN (SELECT id FROM alive)
    AND sent_at IS NULL AND gave_up_at IS NULL
  RETURNING 1
)
SELECT (SELECT count(*) FROM webhooks)::int + (SELECT count(*) FROM emails)::int AS freed
