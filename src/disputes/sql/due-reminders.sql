-- Open disputes still needing the merchant's answer whose deadline is within the reminder lead and that
-- were not reminded yet, at most ${limit}, locked and skipped by another worker; with what the e-mail says.
SELECT d.id, d.collection_id, d.gateway_reference, c.gateway_reference AS collection_gateway_reference, d.stage, d.reason, d.amount_minor,
       d.currency, d.held_minor, w.currency AS account_currency, d.deadline_at,
       (SELECT json_build_object('notification_email', t.notification_email, 'email_merchant', t.email_merchant, 'business_name', b.name)
        FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = c.api_token_id) AS recipients
FROM disputes d JOIN collections c ON c.id = d.collection_id JOIN wallets w ON w.id = d.wallet_id
WHERE d.closed_at IS NULL AND d.reminded_at IS NULL AND d.status = 'needs_response'
  AND d.deadline_at > ${now} AND d.deadline_at <= ${remindBefore}
ORDER BY d.deadline_at LIMIT ${limit}
FOR UPDATE OF d SKIP LOCKED
