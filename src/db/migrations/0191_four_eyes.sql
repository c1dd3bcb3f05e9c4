-- Four eyes that need two people (docs/contract/disbursements.md, "Four eyes"):
-- * users.owner_since: when the person became an owner of their business (invited as one, or given the
--   role); an owner approves disbursements only once OWNER_APPROVAL_WAIT_HOURS have passed since. Owners
--   before this migration count from their account's creation.
-- * api_tokens.secret_holder_user_id: the person who created the token or last regenerated its secret
--   (who has seen it); NULL when the operator key did, or nobody knows. Filled from the audit log where it
--   recorded who did. disbursements.token_holder_user_id keeps that person for what the token asked:
--   they may not approve it, as the person who asks in the dashboard may not.
-- * guard_changes: a loosening of a guard of money out (raising or removing a wallet's approval threshold
--   or limit, widening an API token's IP allowlist) waits here until effective_at, every owner told; a
--   later change of the same setting withdraws it. At most one waits per setting.
ALTER TABLE users ADD COLUMN owner_since TIMESTAMPTZ;
UPDATE users SET owner_since = created_at WHERE role = 'merchant_owner';

ALTER TABLE api_tokens ADD COLUMN secret_holder_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;
UPDATE api_tokens t SET secret_holder_user_id = (
  SELECT a.actor_user_id FROM audit_log a
  WHERE a.target_type = 'api_token' AND a.target_id = t.id::text AND a.action IN ('createApiToken', 'regenerateApiToken')
  ORDER BY a.id DESC LIMIT 1
);

ALTER TABLE disbursements ADD COLUMN token_holder_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;

CREATE TABLE guard_changes (
  id BIGSERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  wallet_id INTEGER REFERENCES wallets (id) ON DELETE CASCADE,
  api_token_id INTEGER REFERENCES api_tokens (id) ON DELETE CASCADE,
  field TEXT NOT NULL CHECK (field IN ('disbursement_limit_minor', 'disbursement_daily_limit_minor', 'disbursement_approval_threshold_minor', 'ip_allowlist')),
  value_minor BIGINT,
  value_cidrs CIDR[],
  requested_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  requested_by TEXT NOT NULL,
  requested_at TIMESTAMPTZ NOT NULL,
  effective_at TIMESTAMPTZ NOT NULL,
  applied_at TIMESTAMPTZ,
  withdrawn_at TIMESTAMPTZ,
  CHECK ((wallet_id IS NULL) <> (api_token_id IS NULL)),
  CHECK ((field = 'ip_allowlist') = (api_token_id IS NOT NULL)),
  CHECK (value_minor IS NULL OR value_cidrs IS NULL)
);
CREATE UNIQUE INDEX guard_changes_one_waiting ON guard_changes (COALESCE(wallet_id, 0), COALESCE(api_token_id, 0), field)
  WHERE applied_at IS NULL AND withdrawn_at IS NULL;
CREATE INDEX guard_changes_due ON guard_changes (effective_at) WHERE applied_at IS NULL AND withdrawn_at IS NULL;
CREATE INDEX guard_changes_wallet ON guard_changes (wallet_id) WHERE wallet_id IS NOT NULL;
CREATE INDEX guard_changes_api_token ON guard_changes (api_token_id) WHERE api_token_id IS NOT NULL;

-- The audit log keeps a disbursement's payee number masked (as the owners' emails do): entries written
-- before are masked here too.
UPDATE audit_log SET after = jsonb_set(after, '{account_number}', to_jsonb('******' || right(after ->> 'account_number', 4)))
WHERE target_type = 'disbursement' AND after ? 'account_number' AND after ->> 'account_number' NOT LIKE '******%';
UPDATE audit_log SET before = jsonb_set(before, '{account_number}', to_jsonb('******' || right(before ->> 'account_number', 4)))
WHERE target_type = 'disbursement' AND before ? 'account_number' AND before ->> 'account_number' NOT LIKE '******%';
