-- This process's heartbeat; the processes whose heartbeat is stale are forgotten. Their claims are freed by
-- the wings that own the claimed rows (notifications' free-dead-claims.sql after each beat; the processor
-- requests' claims take a dead process's rows at once, processor-requests/queue.ts).
WITH beat AS (
  INSERT INTO worker_processes (id, started_at, heartbeat_at) VALUES (${self}, ${now}, ${now})
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at
)
DELETE FROM worker_processes WHERE heartbeat_at < ${staleBefore} AND id <> ${self}
