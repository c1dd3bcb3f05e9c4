-- A wallet's available balance: its account's running balance, summed over its slots (read after lock-wallet.sql).
SELECT COALESCE(SUM(b.balance_minor), 0)::bigint AS available_minor
FROM ledger_accounts a JOIN account_balances b ON b.account_id = a.id
WHERE a.wallet_id = ${walletId} AND a.kind = 'available'
