-- The payment links' part of a collection's state change (collections/sql/move.sql includes it as ${@links},
-- followed by notifications/sql/link-ended-cte.sql): each link whose collections the statement moved to
-- COMPLETED counts them in completions, under its row lock, so that completions at once (in other
-- statements) each count on the others'. The count that crosses completed_limit (once: it only grows) ends
-- the link, unless the expiry sweep ended it first; `link_ended` is the links this statement ended.
-- It reads the statement's `moved` and `input` (per move: updated_at, first_attempt_at, trace_parent).
link_counted AS (
  UPDATE payment_links l SET completions = l.completions + k.n,
    ended_at = CASE WHEN l.ended_at IS NULL AND l.completions + k.n >= l.completed_limit THEN k.at ELSE l.ended_at END,
    end_event = CASE WHEN l.ended_at IS NULL AND l.completions + k.n >= l.completed_limit THEN 'payment_link.exhausted' ELSE l.end_event END
  FROM (
    SELECT a.link_id, count(*)::int AS n, max(i.updated_at) AS at, max(coalesce(i.first_attempt_at, i.updated_at)) AS first_attempt_at,
      max(i.trace_parent) AS trace_parent
    FROM moved m JOIN input i ON i.n = m.n_ JOIN payment_link_attempts a ON a.collection_id = m.id
    WHERE m.status = 'COMPLETED'
    GROUP BY a.link_id
  ) k
  WHERE l.id = k.link_id
  RETURNING l.id, l.api_token_id, l.link_id, l.title, l.completed_limit, l.completions, l.expires_at, l.ended_at, l.end_event,
    k.first_attempt_at, k.trace_parent, l.completions - k.n < l.completed_limit AS crossed_
),
link_ended AS (
  SELECT * FROM link_counted WHERE crossed_ AND end_event = 'payment_link.exhausted'
)
