-- The notifications' part of a collection's state change (collections/sql/move.sql, which includes it as
-- ${@notices} in its one statement): the webhook notification of each moved row whose body is set (a
-- collection with an API token: it took the collection's next sequence) and its emails, valued by
-- NotificationService.statusChangeValues, followed by collection-emails-cte.sql. It reads the statement's
-- `moved` and `input` (per move: event_id, body, first_attempt_at, notified_at, trace_parent, emails_at).
notification AS (
  INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at,
    created_at, trace_parent)
  SELECT m.id, m.api_token_id, i.event_id, m.notification_seq, m.status, i.body, i.first_attempt_at, i.notified_at, i.trace_parent
  FROM moved m JOIN input i ON i.n = m.n_ WHERE i.body IS NOT NULL ORDER BY m.n_
),
email_owner AS (SELECT m.n_ AS n, m.id, i.emails_at AS due_at FROM moved m JOIN input i ON i.n = m.n_)
