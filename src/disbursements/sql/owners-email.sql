-- One email of a disbursement to every active owner of its business but ${exceptUserId} (the person who
-- asked for it, when one did), written to the outbox in the transaction of the state change. The text comes
-- in the pieces around the business's name (${textAroundName}), which is joined in here.
INSERT INTO emails (kind, recipient, subject, text_body, next_attempt_at)
SELECT ${kind}, u.email, ${subject}, array_to_string(${textAroundName}::text[], b.name), ${now}
FROM users u
JOIN businesses b ON b.id = u.business_id
WHERE u.business_id = ${businessId} AND u.role = 'merchant_owner' AND u.disabled_at IS NULL
  AND u.id IS DISTINCT FROM ${exceptUserId}::int
ORDER BY u.id
RETURNING id
