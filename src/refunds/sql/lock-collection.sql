-- The collection to refund, locked for the refund's transaction (FOR NO KEY UPDATE: foreign keys to it
-- still go through), so two refunds of one collection are written one after the other and each sees
-- the other's refunded_minor. Its processor's service type says who pays the refund back. A dispute of it
-- (src/disputes/, which takes this same lock) that is open, lost or accepted refuses a refund: the
-- customer's bank is getting, or got, the money back already (docs/contract/disputes.md).
SELECT c.id, c.business_id, c.status, c.gateway_reference, c.request_amount_minor, c.request_currency,
       c.account_amount_minor, c.account_currency, c.refunded_minor, c.mid_id, m.service_type,
       (SELECT d.gateway_reference FROM disputes d WHERE d.collection_id = c.id AND d.status <> 'won' ORDER BY d.id LIMIT 1) AS dispute_reference
FROM collections c LEFT JOIN mids m ON m.id = c.mid_id
WHERE c.gateway_reference = ${gatewayReference} AND c.business_id = ${businessId}
FOR NO KEY UPDATE OF c
