-- Picks the webhook notifications to claim next (one constant text, prepared on a real server), best first;
-- claim-webhooks.sql then locks and leases them. It reads without locking and joins nothing back to
-- notifications, so its cost stays linear in the undelivered rows whatever the planner believes of them: a
-- backlog that grows faster than statistics follow (an endpoint back after an outage, a burst) is planned
-- as cheaply as a quiet table.
-- * Order per collection (and per refund, per disbursement, per payment link, per dispute: their notifications
--   carry refund_id, disbursement_id, payment_link_id or dispute_id and number their own sequence): only each record's earliest notification that is neither delivered nor given
--   up may be sent; a later one waits for it.
-- * Fair share: each endpoint takes turns; an endpoint gets at most perEndpoint deliveries in flight in
--   this process, counting those already under way (busyTokens / busyCounts), so a hanging endpoint
--   cannot fill the shared limit.
-- * First attempts before retries: a failing endpoint's retries never go ahead of others' first tries.
WITH heads AS (
  SELECT DISTINCT ON (n.collection_id, n.refund_id, n.dispute_id, n.disbursement_id, n.payment_link_id) n.id, n.api_token_id, n.attempts > n.schedule_start AS retry, n.next_attempt_at
  FROM notifications n
  WHERE n.delivered_at IS NULL AND n.gave_up_at IS NULL
  ORDER BY n.collection_id, n.refund_id, n.dispute_id, n.disbursement_id, n.payment_link_id, n.sequence, n.id
),
candidates AS (
  SELECT h.id, h.api_token_id, h.retry, h.next_attempt_at,
    row_number() OVER (PARTITION BY h.api_token_id ORDER BY h.retry, h.next_attempt_at, h.id) AS turn
  FROM heads h
  WHERE h.next_attempt_at <= ${now}::timestamptz
)
SELECT c.id
FROM candidates c
LEFT JOIN unnest(${busyTokens}::int[], ${busyCounts}::int[]) AS busy (api_token_id, in_flight) ON busy.api_token_id = c.api_token_id
WHERE c.turn <= ${perEndpoint}::int - COALESCE(busy.in_flight, 0)
ORDER BY c.turn, c.retry, c.next_attempt_at, c.id
LIMIT ${limit}::int
