-- The balances of a business's wallets (or of its wallet in ${currency} when given), default wallet first,
-- at most ${limit}: each kind of account summed from the running balances, at most 16 rows per account (the
-- dispute hold too, though it is not part of the wallet's balance: docs/contract/disputes.md).
SELECT w.currency,
  COALESCE(SUM(b.balance_minor) FILTER (WHERE a.kind = 'available'), 0)::bigint AS available,
  COALESCE(SUM(b.balance_minor) FILTER (WHERE a.kind = 'pending'), 0)::bigint AS pending,
  COALESCE(SUM(b.balance_minor) FILTER (WHERE a.kind = 'reserved'), 0)::bigint AS reserved,
  COALESCE(SUM(b.balance_minor) FILTER (WHERE a.kind = 'refund_hold'), 0)::bigint AS refund_held,
  COALESCE(SUM(b.balance_minor) FILTER (WHERE a.kind = 'disbursement_hold'), 0)::bigint AS disbursement_held,
  COALESCE(SUM(b.balance_minor) FILTER (WHERE a.kind = 'dispute_hold'), 0)::bigint AS dispute_held
FROM wallets w LEFT JOIN ledger_accounts a ON a.wallet_id = w.id LEFT JOIN account_balances b ON b.account_id = a.id
WHERE w.business_id = ${businessId} AND (${currency}::text IS NULL OR w.currency = ${currency})
GROUP BY w.id, w.currency, w.is_default ORDER BY w.is_default DESC, w.currency LIMIT ${limit}
