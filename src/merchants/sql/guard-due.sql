-- The loosened guards whose notice is over (the guard-changes worker), at most ${limit}, marked applied in
-- the worker's transaction; the caller then sets each one's value and records it in the audit log.
UPDATE guard_changes g SET applied_at = ${now}
WHERE g.id IN (
  SELECT id FROM guard_changes WHERE applied_at IS NULL AND withdrawn_at IS NULL AND effective_at <= ${now}
  ORDER BY effective_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
RETURNING g.id, g.business_id, g.wallet_id, g.api_token_id, g.field, g.value_minor, g.value_cidrs::text[] AS value_cidrs,
  g.requested_by_user_id, g.requested_by, g.requested_at
