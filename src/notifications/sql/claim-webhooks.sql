-- Claims webhook notifications picked by pick-webhooks.sql (ids, best first; one constant text, prepared on a
-- real server): at most `limit` of them, skipping any another process holds, with a lease: next_attempt_at is
-- pushed past the attempt's timeout, so no other process claims them meanwhile, and the claim names this
-- process (freed early if it dies: liveness-beat.sql). Any subset of the picked ids keeps the pick's order
-- per record and fair share, so rows skipped here are only sent later.
WITH due AS (
  SELECT n.id, n.api_token_id FROM notifications n
  WHERE n.id = ANY(${ids}::bigint[])
    -- repeated here so that a row claimed by another process since the pick is re-checked once locked
    AND n.delivered_at IS NULL AND n.gave_up_at IS NULL AND n.next_attempt_at <= ${now}::timestamptz
  ORDER BY array_position(${ids}::bigint[], n.id)
  LIMIT ${limit}::int
  FOR UPDATE OF n SKIP LOCKED
)
UPDATE notifications n SET next_attempt_at = ${leaseUntil}::timestamptz, claimed_by = ${processId}::text
FROM due LEFT JOIN api_tokens t ON t.id = due.api_token_id
WHERE n.id = due.id
RETURNING n.id, n.api_token_id, n.event_id, n.body, n.trace_parent, t.webhook_url, t.webhook_hash_enc
