-- The name of the business a disbursement belongs to, as its owners' emails show it.
SELECT name FROM businesses WHERE id = ${businessId}
