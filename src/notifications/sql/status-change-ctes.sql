-- The notifications' part of a collection's state change (collections/sql/move.sql, which includes it as
-- ${@notices} in its one statement): the webhook notification of each moved row whose body is set (a
-- collection with an API token: it took the collection's next sequence) and its emails, valued by
-- NotificationService.statusChangeValues. It reads the statement's `moved` and `input` (per move: event_id,
-- body, first_attempt_at, notified_at, trace_parent, emails_at) and the flattened email_* arrays, whose
-- email_owners is the move's place.
notification AS (
  INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at,
    created_at, trace_parent)
  SELECT m.id, m.api_token_id, i.event_id, m.notification_seq, m.status, i.body, i.first_attempt_at, i.notified_at, i.trace_parent
  FROM moved m JOIN input i ON i.n = m.n_ WHERE i.body IS NOT NULL ORDER BY m.n_
),
status_emails AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
  SELECT m.id, v.kind, v.recipient, v.subject, v.text_body, i.emails_at
  FROM unnest(${email_owners}::int[], ${email_kinds}::text[], ${email_recipients}::text[], ${email_subjects}::text[],
    ${email_texts}::text[]) WITH ORDINALITY AS v(owner, kind, recipient, subject, text_body, k)
  JOIN moved m ON m.n_ = v.owner
  JOIN input i ON i.n = v.owner
  ORDER BY v.k
)
