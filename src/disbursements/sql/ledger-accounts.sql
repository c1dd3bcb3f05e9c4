-- The ids of the ledger accounts a disbursement's journal posts to, created on first use (in one fixed order,
-- so two sessions creating the same accounts wait rather than deadlock). An account created by another
-- session while this statement ran is found by the caller's second try.
WITH wanted AS (
  SELECT * FROM unnest(${walletIds}::int[], ${currencies}::text[], ${kinds}::text[]) WITH ORDINALITY AS v(wallet_id, currency, kind, n)
), created AS (
  INSERT INTO ledger_accounts (business_id, wallet_id, currency, kind)
  SELECT CASE WHEN w.wallet_id IS NULL THEN NULL ELSE ${businessId}::int END, w.wallet_id, w.currency, w.kind
  FROM wanted w WHERE NOT EXISTS (
    SELECT 1 FROM ledger_accounts a WHERE a.wallet_id IS NOT DISTINCT FROM w.wallet_id AND a.currency = w.currency AND a.kind = w.kind)
  ORDER BY w.n
  ON CONFLICT DO NOTHING
  RETURNING id, wallet_id, currency, kind
)
SELECT id, wallet_id, currency, kind FROM created
UNION ALL
SELECT a.id, a.wallet_id, a.currency, a.kind FROM ledger_accounts a
JOIN wanted w ON a.wallet_id IS NOT DISTINCT FROM w.wallet_id AND a.currency = w.currency AND a.kind = w.kind
