-- The wallet a statement is of: no row when the business does not exist, wallet_id null when it has
-- no wallet in the currency.
SELECT b.id AS business_id, w.id AS wallet_id
FROM businesses b
LEFT JOIN wallets w ON w.business_id = b.id AND w.currency = ${currency}
WHERE b.id = ${business_id}
