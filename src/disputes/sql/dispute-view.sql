-- One dispute as the APIs show it: with its collection's reference, the currency of the wallet its amount
-- is held from, its business and its MID. With a business given, another business's dispute is not found.
SELECT d.id, d.created_at, d.gateway_reference, c.gateway_reference AS collection_gateway_reference, d.stage, d.status, d.reason, d.amount_minor,
       d.currency, d.held_minor, d.debited_minor, d.refunded_minor, w.currency AS account_currency, d.deadline_at, d.resolution,
       d.opened_at, d.closed_at, d.business_id, b.name AS business_name, d.mid_id
FROM disputes d JOIN collections c ON c.id = d.collection_id JOIN wallets w ON w.id = d.wallet_id JOIN businesses b ON b.id = d.business_id
WHERE d.gateway_reference = ${gatewayReference} AND (${businessId}::integer IS NULL OR d.business_id = ${businessId}::integer)
