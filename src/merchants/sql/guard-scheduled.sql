-- The loosened guards still waiting for these wallets or API tokens, oldest first.
SELECT g.wallet_id, g.api_token_id, g.field, g.value_minor, g.value_cidrs::text[] AS value_cidrs, g.requested_by, g.requested_at, g.effective_at
FROM guard_changes g
WHERE g.applied_at IS NULL AND g.withdrawn_at IS NULL
  AND (g.wallet_id = ANY(${walletIds}::int[]) OR g.api_token_id = ANY(${apiTokenIds}::int[]))
ORDER BY g.effective_at, g.id
