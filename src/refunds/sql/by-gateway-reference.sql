-- A business's refund by its gateway_reference, as the record shows it.
SELECT r.*, c.gateway_reference AS collection_gateway_reference
FROM refunds r JOIN collections c ON c.id = r.collection_id
WHERE r.gateway_reference = ${gatewayReference} AND r.business_id = ${businessId}
