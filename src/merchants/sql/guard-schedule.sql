-- A loosened guard of money out, scheduled (merchants/guard-changes.ts): a change already waiting for the
-- same setting is withdrawn and the new one waits until ${effectiveAt}, in the caller's transaction (which
-- holds the business's lock; the caller writes the owners' email in it too).
WITH withdrawn AS (
  UPDATE guard_changes SET withdrawn_at = ${now}
  WHERE COALESCE(wallet_id, 0) = COALESCE(${walletId}::int, 0) AND COALESCE(api_token_id, 0) = COALESCE(${apiTokenId}::int, 0)
    AND field = ${field} AND applied_at IS NULL AND withdrawn_at IS NULL
  RETURNING id
)
INSERT INTO guard_changes (business_id, wallet_id, api_token_id, field, value_minor, value_cidrs, requested_by_user_id, requested_by, requested_at, effective_at)
SELECT ${businessId}, ${walletId}::int, ${apiTokenId}::int, ${field}, ${valueMinor}::bigint, ${valueCidrs}::cidr[], ${userId}::int, ${requestedBy}, ${now}, ${effectiveAt}
FROM (SELECT count(*) FROM withdrawn) w
