-- Business accounts, their fee schedule, wallets, MIDs (routing terminals), API tokens and market rates.
CREATE TABLE businesses (
  id SERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  default_currency CHAR(3) NOT NULL,
  rolling_reserve_percent NUMERIC(5, 2) NOT NULL DEFAULT 0 CHECK (rolling_reserve_percent BETWEEN 0 AND 100),
  rolling_reserve_months INTEGER NOT NULL DEFAULT 0 CHECK (rolling_reserve_months BETWEEN 0 AND 24),
  card_settlement_days INTEGER NOT NULL DEFAULT 0 CHECK (card_settlement_days BETWEEN 0 AND 60),
  fee_bearer TEXT NOT NULL DEFAULT 'merchant' CHECK (fee_bearer IN ('merchant', 'customer')),
  verified_at TIMESTAMPTZ,
  verified_by TEXT,
  verification_note TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE business_fees (
  business_id INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  payment_method TEXT NOT NULL CHECK (payment_method IN ('MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO')),
  percent NUMERIC(5, 2) NOT NULL CHECK (percent BETWEEN 0 AND 100),
  fixed_minor BIGINT NOT NULL CHECK (fixed_minor >= 0),
  PRIMARY KEY (business_id, payment_method)
);

CREATE TABLE wallets (
  id SERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  currency CHAR(3) NOT NULL,
  is_default BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (business_id, currency)
);
CREATE UNIQUE INDEX wallets_one_default ON wallets (business_id) WHERE is_default;

CREATE TABLE mids (
  id SERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  business_name TEXT NOT NULL,
  service_type TEXT NOT NULL,
  payment_method TEXT NOT NULL CHECK (payment_method IN ('MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO')),
  currency CHAR(3) NOT NULL,
  allowed_traffic JSONB NOT NULL DEFAULT '"ALL"',
  merchant_operator TEXT,
  merchant_username TEXT,
  merchant_password_enc TEXT,
  processing_rank INTEGER NOT NULL DEFAULT 1 CHECK (processing_rank >= 1),
  reject_first_time_depositors BOOLEAN NOT NULL DEFAULT false,
  active BOOLEAN NOT NULL DEFAULT true,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX mids_route ON mids (business_id, payment_method, currency) WHERE active;

-- generation goes up on every regeneration; access tokens carry it, so older ones stop at once.
CREATE TABLE api_tokens (
  id SERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  api_key TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  generation INTEGER NOT NULL DEFAULT 1,
  notification_email TEXT NOT NULL,
  webhook_url TEXT NOT NULL,
  webhook_hash_enc TEXT NOT NULL,
  email_merchant BOOLEAN NOT NULL DEFAULT false,
  email_user BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_business ON api_tokens (business_id);

-- 1 unit of base = rate units of quote.
CREATE TABLE fx_rates (
  base CHAR(3) NOT NULL,
  quote CHAR(3) NOT NULL,
  rate NUMERIC(30, 12) NOT NULL CHECK (rate > 0),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (base, quote),
  CHECK (base <> quote)
);

-- Failed token requests, per api_key and per client address, in fixed one-minute windows.
CREATE TABLE auth_failures (
  bucket TEXT NOT NULL,
  window_start TIMESTAMPTZ NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, window_start)
);

-- Operator-side secrets that every process of a deployment must share (the card RSA keys).
CREATE TABLE card_keys (
  key_id TEXT PRIMARY KEY,
  public_pem TEXT NOT NULL,
  private_pem_enc TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  retired_at TIMESTAMPTZ,
  expires_at TIMESTAMPTZ
);
