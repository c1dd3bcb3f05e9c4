-- One email of a disbursement to every active owner of its business but ${exceptUserId} (the person who
-- asked for it, when one did), written to the outbox in the transaction of the state change.
INSERT INTO emails (kind, recipient, subject, text_body, next_attempt_at)
SELECT ${kind}, u.email, ${subject}, ${text}, ${now}
FROM users u
WHERE u.business_id = ${businessId} AND u.role = 'merchant_owner' AND u.disabled_at IS NULL
  AND u.id IS DISTINCT FROM ${exceptUserId}::int
ORDER BY u.id
RETURNING id
