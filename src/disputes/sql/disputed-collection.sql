-- The completed card collection a processor's dispute names (by the processor's transaction reference,
-- or our gateway reference where the processor was given it), locked for the dispute's transaction in the
-- order a refund takes it (collection, then the wallet's ledger rows): a dispute and a refund of one
-- collection are written one after the other, each seeing the other. Also its wallet, its MID's
-- currency (the integration's country) and the merchant's e-mail settings.
SELECT c.id, c.business_id, c.gateway_reference, c.status, c.payment_method, c.mid_id, c.request_amount_minor,
       c.account_amount_minor, c.account_currency, c.refunded_minor, w.id AS wallet_id, m.currency AS mid_currency,
       (SELECT json_build_object('notification_email', t.notification_email, 'email_merchant', t.email_merchant, 'business_name', b.name)
        FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = c.api_token_id) AS recipients
FROM collections c
JOIN mids m ON m.id = c.mid_id
JOIN wallets w ON w.business_id = c.business_id AND w.currency = c.account_currency
WHERE m.service_type = ${serviceType}
  AND (c.gateway_reference = ${reference}
       OR c.id = (SELECT p.collection_id FROM processor_requests p WHERE p.service_type = ${serviceType} AND p.vendor_reference = ${reference} LIMIT 1))
LIMIT 1
FOR NO KEY UPDATE OF c
