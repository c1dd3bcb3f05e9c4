-- One email to every active owner of a business but ${exceptUserId} (the person who asked for what it
-- tells of, when one did), written to the outbox in the caller's transaction.
INSERT INTO emails (kind, recipient, subject, text_body, next_attempt_at)
SELECT ${kind}, u.email, ${subject}, ${text}, ${now}
FROM users u
WHERE u.business_id = ${businessId} AND u.role = 'merchant_owner' AND u.disabled_at IS NULL
  AND u.id IS DISTINCT FROM ${exceptUserId}::int
ORDER BY u.id
