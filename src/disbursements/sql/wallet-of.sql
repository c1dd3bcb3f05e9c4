-- Whether the business has a wallet in the currency (asked only when no MID can pay, to give the right reason).
SELECT id FROM wallets WHERE business_id = ${businessId} AND currency = ${currency}
