-- What the moves of a batch of collections need, read without a lock (one constant text, prepared on a real
-- server; a single move is a batch of one): one row per element of ids that exists (n_ its place, 1-based,
-- so a collection asked twice answers twice), with for a completion (its credit element true) the wallet to
-- credit, its business's reserve and settlement terms and the ledger accounts that already exist for the
-- wallet and for the service in its currency (NULL when the business has no wallet in the collection's
-- currency); and who its notices go to (NULL without an API token). Amounts and rates are read as text: JSON
-- numbers would round them.
SELECT c.*, i.n AS n_,
  CASE WHEN i.credit THEN (
    SELECT json_build_object('wallet_id', w.id, 'reserve_percent', b.rolling_reserve_percent::text,
      'rolling_reserve_months', b.rolling_reserve_months, 'card_settlement_days', b.card_settlement_days,
      'accounts', (SELECT json_agg(json_build_object('id', a.id, 'wallet_id', a.wallet_id, 'currency', a.currency, 'kind', a.kind))
                   FROM ledger_accounts a WHERE a.wallet_id = w.id OR (a.wallet_id IS NULL AND a.currency = w.currency)))
    FROM wallets w JOIN businesses b ON b.id = w.business_id
    WHERE w.business_id = c.business_id AND w.currency = c.account_currency
  ) END AS credit_context,
  (SELECT json_build_object('notification_email', t.notification_email, 'email_merchant', t.email_merchant,
      'email_user', t.email_user, 'business_name', b.name)
    FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = c.api_token_id) AS outbox_recipients
FROM unnest(${ids}::bigint[], ${credits}::boolean[]) WITH ORDINALITY AS i(id, credit, n)
JOIN collections c ON c.id = i.id
ORDER BY i.n
