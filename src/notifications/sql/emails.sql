-- Emails in the outbox, in order, in the transaction of what they tell of (a collection's when they are
-- about one), sent by the email worker.
INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
SELECT ${collectionId}, v.kind, v.recipient, v.subject, v.text_body, ${now}
FROM unnest(${kinds}::text[], ${recipients}::text[], ${subjects}::text[], ${texts}::text[]) WITH ORDINALITY AS v(kind, recipient, subject, text_body, n)
ORDER BY v.n
