-- A business's refund by its merchant_reference, as the record shows it.
SELECT r.*, c.gateway_reference AS collection_gateway_reference
FROM refunds r JOIN collections c ON c.id = r.collection_id
WHERE r.business_id = ${businessId} AND r.merchant_reference = ${merchantReference}
