-- The collection to refund, locked for the refund's transaction (FOR NO KEY UPDATE: foreign keys to it
-- still go through), so two refunds of one collection are written one after the other and each sees
-- the other's refunded_minor. Its processor's service type says who pays the refund back.
SELECT c.id, c.business_id, c.status, c.gateway_reference, c.request_amount_minor, c.request_currency,
       c.account_amount_minor, c.account_currency, c.refunded_minor, c.mid_id, m.service_type
FROM collections c LEFT JOIN mids m ON m.id = c.mid_id
WHERE c.gateway_reference = ${gatewayReference} AND c.business_id = ${businessId}
FOR NO KEY UPDATE OF c
