-- Collections, routing state, provider reports awaiting processing, card first-seen dates and the
-- sandbox's record of the designated scenarios each business has run.
CREATE TABLE collections (
  id BIGSERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id),
  api_token_id INTEGER REFERENCES api_tokens (id) ON DELETE SET NULL,
  gateway_reference TEXT NOT NULL UNIQUE,
  merchant_reference TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED')),
  message TEXT NOT NULL,
  request_amount_minor BIGINT NOT NULL CHECK (request_amount_minor > 0),
  request_currency CHAR(3) NOT NULL,
  account_amount_minor BIGINT NOT NULL,
  account_currency CHAR(3) NOT NULL,
  fx_rate NUMERIC(30, 12),
  fee_minor BIGINT NOT NULL,
  total_credit_minor BIGINT NOT NULL,
  customer_charged BOOLEAN NOT NULL,
  account_number TEXT,
  account_name TEXT,
  account_email TEXT,
  narration TEXT NOT NULL,
  redirect_url TEXT,
  institution_name TEXT,
  payment_url TEXT,
  instructions JSONB,
  mid_id INTEGER REFERENCES mids (id),
  routing JSONB NOT NULL DEFAULT '{}',
  card_masked TEXT,
  card_fingerprint TEXT,
  page_token TEXT,
  notification_seq INTEGER NOT NULL DEFAULT 0,
  expires_at TIMESTAMPTZ NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (business_id, merchant_reference)
);
CREATE INDEX collections_business_newest ON collections (business_id, created_at DESC, id DESC);
CREATE INDEX collections_newest ON collections (created_at DESC, id DESC);
CREATE INDEX collections_pending_expiry ON collections (expires_at) WHERE status = 'PENDING';

-- Round-robin turn per (business, method, currency, rank): one counter row, incremented atomically.
CREATE TABLE routing_cursors (
  business_id INTEGER NOT NULL,
  payment_method TEXT NOT NULL,
  currency CHAR(3) NOT NULL,
  processing_rank INTEGER NOT NULL,
  turn BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (business_id, payment_method, currency, processing_rank)
);

-- Reports from a processor (the sandbox simulator schedules its own), processed once by a worker.
CREATE TABLE provider_events (
  id BIGSERIAL PRIMARY KEY,
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  outcome TEXT NOT NULL CHECK (outcome IN ('COMPLETED', 'FAILED', 'CANCELLED')),
  message TEXT,
  due_at TIMESTAMPTZ NOT NULL,
  processed_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX provider_events_due ON provider_events (due_at) WHERE processed_at IS NULL;

-- A keyed one-way fingerprint of each card number and when this service first saw it.
CREATE TABLE card_fingerprints (
  fingerprint TEXT PRIMARY KEY,
  first_seen_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE certification_events (
  business_id INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  gateway_reference TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, scenario)
);
