-- One dispute of a business as the API shows it: with its collection's reference and the currency of
-- the wallet its amount is held from. Another business's dispute is not found.
SELECT d.id, d.created_at, d.gateway_reference, c.gateway_reference AS collection_gateway_reference, d.stage, d.status, d.reason, d.amount_minor,
       d.currency, d.held_minor, d.debited_minor, d.refunded_minor, w.currency AS account_currency, d.deadline_at, d.resolution,
       d.opened_at, d.closed_at
FROM disputes d JOIN collections c ON c.id = d.collection_id JOIN wallets w ON w.id = d.wallet_id
WHERE d.gateway_reference = ${gatewayReference} AND d.business_id = ${businessId}
