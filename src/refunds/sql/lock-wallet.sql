-- The wallet a refund is taken from, locked so that refunds of one wallet check and take its available
-- balance one after the other. Its own statement: the available balance is read after the lock is held
-- (wallet-available.sql), in a snapshot that sees every refund committed before.
SELECT w.id FROM wallets w WHERE w.business_id = ${businessId} AND w.currency = ${currency} FOR NO KEY UPDATE
