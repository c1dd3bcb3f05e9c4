-- Claims due webhook notifications (one constant text, prepared on a real server) fairly across endpoints (API tokens), with a lease: next_attempt_at
-- is pushed past the attempt's timeout, so no other process claims them meanwhile, and the claim names
-- this process (freed early if it dies: liveness-beat.sql).
-- * Order per collection (and per refund: a refund's notifications carry its refund_id and number
--   their own sequence): a notification waits while an earlier one (lower sequence) of the same
--   collection and refund is neither delivered nor given up.
-- * Fair share: each endpoint takes turns; an endpoint gets at most perEndpoint deliveries in flight in
--   this process, counting those already under way (busyTokens / busyCounts), so a hanging endpoint
--   cannot fill the shared limit.
-- * First attempts before retries: a failing endpoint's retries never go ahead of others' first tries.
WITH candidates AS (
  SELECT n.id, n.api_token_id, n.attempts > n.schedule_start AS retry,
    row_number() OVER (PARTITION BY n.api_token_id ORDER BY n.attempts > n.schedule_start, n.next_attempt_at, n.id) AS turn
  FROM notifications n
  WHERE n.delivered_at IS NULL AND n.gave_up_at IS NULL AND n.next_attempt_at <= ${now}::timestamptz
    AND NOT EXISTS (
      SELECT 1 FROM notifications e
      WHERE e.collection_id = n.collection_id AND e.refund_id IS NOT DISTINCT FROM n.refund_id AND e.sequence < n.sequence
        AND e.delivered_at IS NULL AND e.gave_up_at IS NULL)
),
due AS (
  SELECT n.id, n.api_token_id FROM notifications n
  JOIN candidates c ON c.id = n.id
  LEFT JOIN unnest(${busyTokens}::int[], ${busyCounts}::int[]) AS busy (api_token_id, in_flight) ON busy.api_token_id = c.api_token_id
  -- repeated here so that a row claimed by another process meanwhile is re-checked once locked
  WHERE n.delivered_at IS NULL AND n.gave_up_at IS NULL AND n.next_attempt_at <= ${now}::timestamptz
    AND c.turn <= ${perEndpoint}::int - COALESCE(busy.in_flight, 0)
  ORDER BY c.turn, c.retry, n.next_attempt_at, n.id
  LIMIT ${limit}::int
  FOR UPDATE OF n SKIP LOCKED
)
UPDATE notifications n SET next_attempt_at = ${leaseUntil}::timestamptz, claimed_by = ${processId}::text
FROM due LEFT JOIN api_tokens t ON t.id = due.api_token_id
WHERE n.id = due.id
RETURNING n.id, n.api_token_id, n.event_id, n.body, n.trace_parent, t.webhook_url, t.webhook_hash_enc
