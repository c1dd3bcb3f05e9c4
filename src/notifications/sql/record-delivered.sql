-- Records delivered webhook attempts, a batch at once (the webhook worker gathers those that finish while
-- one batch is being written): each notification's attempt counted and logged and its row closed, in one
-- statement. Its commit does not wait for the WAL flush: a crash that loses it leaves the rows claimed, so
-- they are sent again once the claim is freed, as after a crash between the send and this record (at least
-- once).
SET LOCAL synchronous_commit TO OFF;
WITH d AS (
  SELECT * FROM unnest(${ids}::bigint[], ${ats}::timestamptz[], ${statuses}::int[], ${durations}::int[], ${bodies}::text[])
    AS d (id, at, http_status, duration_ms, response_body)
),
n AS (
  UPDATE notifications x SET attempts = x.attempts + 1, delivered_at = COALESCE(x.delivered_at, ${now}::timestamptz), next_attempt_at = NULL,
    gave_up_at = NULL, last_error = NULL, claimed_by = NULL
  FROM d
  WHERE x.id = d.id
  RETURNING x.id, x.attempts
)
INSERT INTO notification_attempts (notification_id, attempt, at, http_status, error, duration_ms, response_body)
SELECT d.id, n.attempts, d.at, d.http_status, NULL, d.duration_ms, d.response_body
FROM d JOIN n ON n.id = d.id
RETURNING notification_id, attempt
