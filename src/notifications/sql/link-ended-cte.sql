-- The notifications' part of a payment link's end (docs/contract/payment-links.md, "Webhooks"): the one
-- webhook notification of each row of the statement's `link_ended` (id, api_token_id, link_id, title,
-- completed_limit, completions, expires_at, ended_at, end_event, first_attempt_at, trace_parent), written by
-- the statement that ended the link: a collection's completion that brought it to its limit
-- (collections/sql/move.sql, through payment-links/sql/completion-cte.sql) or the expiry sweep
-- (payment-links/sql/expire-due.sql). A link's notifications number their own sequence; its end is its first
-- and only one. A link whose API token was deleted has nobody to tell.
link_notification AS (
  INSERT INTO notifications (payment_link_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
  SELECT e.id, e.api_token_id, 'evt_' || replace(gen_random_uuid()::text, '-', ''), 1, e.end_event,
    json_build_object(
      'transaction_type', 'payment_link',
      'event', e.end_event,
      'link_id', e.link_id,
      'title', e.title,
      'completed_limit', e.completed_limit,
      'completed_payments', e.completions,
      'expires_at', to_char(e.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
      'occurred_at', to_char(e.ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
      'sequence', 1
    )::text,
    e.first_attempt_at, e.ended_at, e.trace_parent
  FROM link_ended e WHERE e.api_token_id IS NOT NULL
)
