-- A business's disbursement by its gateway_reference (another business's is not found).
SELECT * FROM disbursements WHERE business_id = ${businessId} AND gateway_reference = ${gatewayReference}
