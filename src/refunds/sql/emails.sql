-- A refund's emails in the outbox, in order.
INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
SELECT ${collectionId}, v.kind, v.recipient, v.subject, v.text_body, ${now}
FROM unnest(${kinds}::text[], ${recipients}::text[], ${subjects}::text[], ${texts}::text[]) WITH ORDINALITY AS v(kind, recipient, subject, text_body, n)
ORDER BY v.n
