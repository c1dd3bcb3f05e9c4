-- Disbursements (docs/contract/disbursements.md): money paid out of a merchant's wallet to a phone or a
-- bank account, through a MID that disburses. Like a refund, a disbursement row is also its request to
-- the processor: written first, in the same transaction as the ledger hold of amount + fee; sent by a
-- worker with our `reference`, which never changes; an unknown outcome is settled by a status query,
-- never by a send under a new reference.

-- What a business pays per disbursement (percent of the amount plus fixed, in the wallet's currency,
-- as a collection fee is read) and whether an operator froze its disbursements.
ALTER TABLE businesses ADD COLUMN disbursement_fee_percent NUMERIC(5, 2) NOT NULL DEFAULT 0
  CHECK (disbursement_fee_percent BETWEEN 0 AND 100);
ALTER TABLE businesses ADD COLUMN disbursement_fee_fixed_minor BIGINT NOT NULL DEFAULT 0 CHECK (disbursement_fee_fixed_minor >= 0);
ALTER TABLE businesses ADD COLUMN disbursements_frozen BOOLEAN NOT NULL DEFAULT false;
-- How long a disbursement waits in PENDING_APPROVAL before it is CANCELLED.
ALTER TABLE businesses ADD COLUMN disbursement_approval_hours INTEGER NOT NULL DEFAULT 24
  CHECK (disbursement_approval_hours BETWEEN 1 AND 720);

-- The limits are amounts, so they belong to a currency: each wallet has its own (NULL = no limit).
-- Read from the wallet's row under the lock a disbursement takes, so two disbursements check them one
-- after the other. The daily limit counts the UTC day's disbursements that are not FAILED, CANCELLED or
-- REVERSED; above the approval threshold a disbursement waits for a second person.
ALTER TABLE wallets ADD COLUMN disbursement_limit_minor BIGINT CHECK (disbursement_limit_minor > 0);
ALTER TABLE wallets ADD COLUMN disbursement_daily_limit_minor BIGINT CHECK (disbursement_daily_limit_minor > 0);
ALTER TABLE wallets ADD COLUMN disbursement_approval_threshold_minor BIGINT CHECK (disbursement_approval_threshold_minor >= 0);

-- An API token may name the addresses its disbursements come from; in live none are accepted until it does.
ALTER TABLE api_tokens ADD COLUMN ip_allowlist CIDR[];

-- A MID collects, disburses, or both. Every MID so far collects and does not disburse.
ALTER TABLE mids ADD COLUMN collects BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE mids ADD COLUMN disburses BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX mids_disburse_route ON mids (business_id, payment_method, currency) WHERE active AND disburses;

CREATE TABLE disbursements (
  id BIGSERIAL PRIMARY KEY,
  business_id INTEGER NOT NULL REFERENCES businesses (id),
  api_token_id INTEGER REFERENCES api_tokens (id) ON DELETE SET NULL,
  wallet_id INTEGER NOT NULL REFERENCES wallets (id),
  gateway_reference TEXT NOT NULL UNIQUE,
  merchant_reference TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  -- paid to the payee, in the wallet's currency; the fee is held with it and goes to revenue
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
  fee_minor BIGINT NOT NULL CHECK (fee_minor >= 0),
  currency CHAR(3) NOT NULL,
  payment_method TEXT NOT NULL CHECK (payment_method IN ('MOBILE_MONEY', 'BANK')),
  account_number TEXT NOT NULL,
  bank_code TEXT,
  account_name TEXT NOT NULL,
  narration TEXT,
  status TEXT NOT NULL CHECK (status IN ('PENDING_APPROVAL', 'PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED')),
  pending_reason TEXT CHECK (pending_reason IN ('awaiting_approval', 'awaiting_processor', 'outcome_unknown')),
  failure_reason TEXT,
  message TEXT NOT NULL,
  notification_seq INTEGER NOT NULL DEFAULT 0,
  -- four eyes: who asked (a dashboard user, or NULL for an API token), who decided, and until when
  requested_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  decided_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  decided_at TIMESTAMPTZ,
  approval_expires_at TIMESTAMPTZ,
  -- the request to the processor
  service_type TEXT NOT NULL,
  mid_id INTEGER REFERENCES mids (id),
  reference TEXT NOT NULL UNIQUE,
  callback_token TEXT NOT NULL UNIQUE,
  vendor_reference TEXT,
  -- 'held': waiting for approval, not to be sent
  send_state TEXT NOT NULL CHECK (send_state IN ('held', 'queued', 'sent', 'unknown', 'settled')),
  send_attempts INTEGER NOT NULL DEFAULT 0,
  next_send_at TIMESTAMPTZ,
  checks INTEGER NOT NULL DEFAULT 0,
  next_check_at TIMESTAMPTZ,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  UNIQUE (business_id, merchant_reference),
  CHECK ((status IN ('PENDING_APPROVAL', 'PENDING')) = (pending_reason IS NOT NULL)),
  CHECK ((payment_method = 'BANK') = (bank_code IS NOT NULL))
);
CREATE INDEX disbursements_to_send ON disbursements (next_send_at) WHERE next_send_at IS NOT NULL;
CREATE INDEX disbursements_to_check ON disbursements (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE INDEX disbursements_approval_due ON disbursements (approval_expires_at) WHERE status = 'PENDING_APPROVAL';
CREATE INDEX disbursements_business_newest ON disbursements (business_id, created_at DESC, id DESC);
-- the daily limit's sum: one wallet's disbursements of a day
CREATE INDEX disbursements_wallet_day ON disbursements (wallet_id, created_at);

-- The hold of a disbursement under way (amount + fee): taken from available when it is written, moved
-- out (amount to the processor, fee to revenue) on COMPLETED, returned on FAILED or CANCELLED.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('available', 'pending', 'reserved', 'refund_hold', 'disbursement_hold', 'fee_revenue', 'processor_clearing'));

-- A disbursement's journals: one hold, one outcome (out or return), and after COMPLETED at most one reversal.
ALTER TABLE journals ADD COLUMN disbursement_id BIGINT REFERENCES disbursements (id);
CREATE UNIQUE INDEX journals_one_disbursement_hold ON journals (disbursement_id) WHERE kind = 'disbursement_hold';
CREATE UNIQUE INDEX journals_one_disbursement_outcome ON journals (disbursement_id) WHERE kind IN ('disbursement_out', 'disbursement_return');
CREATE UNIQUE INDEX journals_one_disbursement_reversal ON journals (disbursement_id) WHERE kind = 'disbursement_reversal';

-- A notification is about a collection (and maybe one of its refunds) or about a disbursement: exactly one.
ALTER TABLE notifications ALTER COLUMN collection_id DROP NOT NULL;
ALTER TABLE notifications ADD COLUMN disbursement_id BIGINT REFERENCES disbursements (id);
ALTER TABLE notifications ADD CONSTRAINT notifications_one_subject
  CHECK ((collection_id IS NULL) <> (disbursement_id IS NULL) AND (refund_id IS NULL OR collection_id IS NOT NULL));
CREATE INDEX notifications_disbursement ON notifications (disbursement_id, sequence) WHERE disbursement_id IS NOT NULL;
