-- This process's heartbeat; then the claims of processes whose heartbeat is stale (or that never beat)
-- are freed: due at once, for any live process to take. Returns how many claims were freed.
WITH beat AS (
  INSERT INTO worker_processes (id, started_at, heartbeat_at) VALUES (${self}, ${now}, ${now})
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at
),
alive AS (
  SELECT id FROM worker_processes WHERE heartbeat_at >= ${staleBefore}
),
gone AS (
  DELETE FROM worker_processes WHERE heartbeat_at < ${staleBefore} AND id <> ${self}
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
