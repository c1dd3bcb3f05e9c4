-- The business's active MIDs that disburse by ${paymentMethod} in ${currency}, best rank first (the
-- caller takes the best rank and the round-robin turn among them), with their processor.
SELECT m.id, m.service_type, m.processing_rank
FROM mids m
WHERE m.business_id = ${businessId} AND m.active AND m.disburses AND m.payment_method = ${paymentMethod} AND m.currency = ${currency}
ORDER BY m.processing_rank, m.id
