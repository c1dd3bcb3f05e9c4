-- The emails of a batch of collections, the notifications' part of request-to-pay's write (the start notices)
-- and of a state change (the status emails): the flattened email_* arrays, whose email_owners is the place
-- (1-based) of the request or move each belongs to, found through `email_owner` (n: that place, id: its
-- collection, due_at: when its emails go), which the part before it (start-emails-cte.sql,
-- status-change-ctes.sql) reads from the statement's rows.
collection_emails AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
  SELECT o.id, v.kind, v.recipient, v.subject, v.text_body, o.due_at
  FROM unnest(${email_owners}::int[], ${email_kinds}::text[], ${email_recipients}::text[], ${email_subjects}::text[],
    ${email_texts}::text[]) WITH ORDINALITY AS v(owner, kind, recipient, subject, text_body, k)
  JOIN email_owner o ON o.n = v.owner
  ORDER BY v.k
)
