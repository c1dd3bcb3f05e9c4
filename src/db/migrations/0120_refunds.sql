-- Refunds (docs/contract/refunds.md): money given back to the customer of a COMPLETED collection,
-- through the processor that took it. A refund row is also its request to the processor (written
-- first, in the same transaction as the ledger hold; sent by a worker with our `reference`, which
-- never changes; an unknown outcome is settled by a status query, never by a send under a new
-- reference).

-- What the collection's refunds that are not FAILED or CANCELLED add up to, in the request currency.
-- Kept with every refund under the collection's row lock; the check makes over-refunding impossible
-- whatever the code above it does.
ALTER TABLE collections ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0;
ALTER TABLE collections ADD CONSTRAINT collections_refunded_within_paid
  CHECK (refunded_minor >= 0 AND refunded_minor <= request_amount_minor);

CREATE TABLE refunds (
  id BIGSERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id),
  api_token_id INTEGER REFERENCES api_tokens (id) ON DELETE SET NULL,
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  wallet_id INTEGER NOT NULL REFERENCES wallets (id),
  gateway_reference TEXT NOT NULL UNIQUE,
  merchant_reference TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  -- given back to the customer, in the collection's request currency
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
  currency CHAR(3) NOT NULL,
  -- taken from the wallet, in its currency (the collection's own conversion)
  account_amount_minor BIGINT NOT NULL CHECK (account_amount_minor > 0),
  account_currency CHAR(3) NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  pending_reason TEXT CHECK (pending_reason IN ('awaiting_processor', 'outcome_unknown')),
  failure_reason TEXT,
  reason TEXT,
  message TEXT NOT NULL,
  claim_url TEXT,
  notification_seq INTEGER NOT NULL DEFAULT 0,
  -- the request to the processor
  service_type TEXT NOT NULL,
  mid_id INTEGER REFERENCES mids (id),
  reference TEXT NOT NULL UNIQUE,
  callback_token TEXT NOT NULL UNIQUE,
  vendor_reference TEXT,
  send_state TEXT NOT NULL CHECK (send_state IN ('queued', 'sent', 'unknown', 'settled')),
  send_attempts INTEGER NOT NULL DEFAULT 0,
  next_send_at TIMESTAMPTZ,
  checks INTEGER NOT NULL DEFAULT 0,
  next_check_at TIMESTAMPTZ,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  UNIQUE (business_id, merchant_reference),
  CHECK ((status = 'PENDING') = (pending_reason IS NOT NULL))
);
CREATE INDEX refunds_to_send ON refunds (next_send_at) WHERE next_send_at IS NOT NULL;
CREATE INDEX refunds_to_check ON refunds (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE INDEX refunds_collection ON refunds (collection_id, id);
CREATE INDEX refunds_business_newest ON refunds (business_id, created_at DESC, id DESC);

-- The hold of a refund under way: taken from available when the refund is written, moved out to the
-- processor on COMPLETED, returned to available on FAILED or CANCELLED.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('available', 'pending', 'reserved', 'refund_hold', 'fee_revenue', 'processor_clearing'));

-- A refund's journals: one hold, then one outcome (out or return), never two of either.
ALTER TABLE journals ADD COLUMN refund_id BIGINT REFERENCES refunds (id);
CREATE UNIQUE INDEX journals_one_refund_hold ON journals (refund_id) WHERE kind = 'refund_hold';
CREATE UNIQUE INDEX journals_one_refund_outcome ON journals (refund_id) WHERE kind IN ('refund_out', 'refund_return');

-- A refund's notifications are ordered among themselves (sequence per refund), not with its collection's.
ALTER TABLE notifications ADD COLUMN refund_id BIGINT REFERENCES refunds (id);
CREATE INDEX notifications_refund ON notifications (refund_id, sequence) WHERE refund_id IS NOT NULL;

-- A refund asked for with an API token is in the audit log under that token.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_type_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_type_check CHECK (actor_type IN ('user', 'operator_key', 'anonymous', 'api_token'));
