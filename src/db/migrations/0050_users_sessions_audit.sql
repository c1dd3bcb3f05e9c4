-- Dashboard people (issue 17): users with roles, server-side sessions, invitations, password resets,
-- two-factor recovery codes, go-live requests, and the audit log of every change.
CREATE TABLE users (
  id SERIAL PRIMARY KEY,
  email TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
  name TEXT,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('operator_admin', 'operator_support', 'merchant_owner', 'merchant_developer', 'merchant_viewer')),
  business_id INTEGER REFERENCES businesses (id) ON DELETE CASCADE,
  -- the TOTP secret encrypted with MASTER_KEY; enabled once a code was confirmed
  totp_secret_enc TEXT,
  totp_enabled_at TIMESTAMPTZ,
  -- the last accepted 30-second step: a code is accepted once
  totp_last_step BIGINT,
  disabled_at TIMESTAMPTZ,
  last_login_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  CHECK ((role LIKE 'merchant_%') = (business_id IS NOT NULL))
);
CREATE INDEX users_business ON users (business_id);

-- The cookie holds a random id; only its SHA-256 is stored, so a database read gives no live session.
CREATE TABLE user_sessions (
  id_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  state TEXT NOT NULL CHECK (state IN ('active', 'totp_required', 'totp_enrolment_required')),
  csrf_token TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL,
  absolute_expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

CREATE TABLE totp_recovery_codes (
  id SERIAL PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at TIMESTAMPTZ
);
CREATE INDEX totp_recovery_codes_user ON totp_recovery_codes (user_id);

-- Single-use tokens sent by email (invitations, password resets): stored as SHA-256 only.
CREATE TABLE invitations (
  id SERIAL PRIMARY KEY,
  email TEXT NOT NULL CHECK (email = lower(email)),
  role TEXT NOT NULL,
  business_id INTEGER REFERENCES businesses (id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  invited_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  invited_by_email TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  accepted_at TIMESTAMPTZ,
  revoked_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX invitations_one_pending ON invitations (email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
CREATE INDEX invitations_business ON invitations (business_id);

CREATE TABLE password_resets (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  used_at TIMESTAMPTZ
);

CREATE TABLE go_live_requests (
  business_id INTEGER PRIMARY KEY REFERENCES businesses (id) ON DELETE CASCADE,
  requested_at TIMESTAMPTZ NOT NULL,
  requested_by TEXT NOT NULL,
  note TEXT
);

-- before/after are the records with every secret removed (see src/people/audit.ts).
CREATE TABLE audit_log (
  id BIGSERIAL PRIMARY KEY,
  at TIMESTAMPTZ NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('user', 'operator_key')),
  actor_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  actor_email TEXT,
  action TEXT NOT NULL,
  business_id INTEGER REFERENCES businesses (id) ON DELETE SET NULL,
  target_type TEXT,
  target_id TEXT,
  before JSONB,
  after JSONB,
  request_id TEXT
);
CREATE INDEX audit_log_business ON audit_log (business_id, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor_user_id, id DESC);
