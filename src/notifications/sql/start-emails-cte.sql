-- The notifications' part of request-to-pay's write (collections/sql/create.sql, which includes it as
-- ${@startEmails} in its one statement): the start notices of each new collection, valued by
-- NotificationService.startEmails. It reads the statement's `made` (the new rows, n their place) and the
-- flattened email_* arrays, whose email_owners is the request's place.
start_email AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
  SELECT m.id, v.kind, v.recipient, v.subject, v.text_body, m.created_at
  FROM unnest(${email_owners}::int[], ${email_kinds}::text[], ${email_recipients}::text[], ${email_subjects}::text[],
    ${email_texts}::text[]) WITH ORDINALITY AS v(owner, kind, recipient, subject, text_body, k)
  JOIN made m ON m.n = v.owner
  ORDER BY v.k
)
