-- A guard set at once (tightened, or set to what it is): a loosening of the same setting that waits is
-- withdrawn, so it never applies over the newer choice.
UPDATE guard_changes SET withdrawn_at = ${now}
WHERE COALESCE(wallet_id, 0) = COALESCE(${walletId}::int, 0) AND COALESCE(api_token_id, 0) = COALESCE(${apiTokenId}::int, 0)
  AND field = ${field} AND applied_at IS NULL AND withdrawn_at IS NULL
