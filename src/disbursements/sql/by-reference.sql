-- A business's disbursement by its merchant_reference.
SELECT * FROM disbursements WHERE business_id = ${businessId} AND merchant_reference = ${merchantReference}
