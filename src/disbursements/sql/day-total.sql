-- What the wallet's disbursements of one UTC day that still count add up to (not FAILED, CANCELLED or
-- REVERSED), for the daily limit. Run after lock-wallet.sql, as its own statement.
SELECT COALESCE(SUM(amount_minor), 0)::bigint AS total_minor
FROM disbursements
WHERE wallet_id = ${walletId} AND created_at >= ${dayStart} AND created_at < ${dayEnd}
  AND status NOT IN ('FAILED', 'CANCELLED', 'REVERSED')
