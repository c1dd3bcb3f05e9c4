-- Card disputes (docs/contract/disputes.md): a chargeback a processor reports on a completed card
-- collection. One row per dispute at the processor, unique per MID (the processor's id is its own and
-- only unique in its account); the one writer is src/disputes/. amount_minor and currency are the
-- processor's (what the customer's bank claims); held_minor is that claim in the wallet's currency, the
-- amount taken from available to the dispute hold when the dispute opened, and debited_minor what was
-- finally taken (the whole hold when lost, a partial acceptance's amount). refunded_minor is what had
-- already been returned to the customer by refunds when the dispute was recorded.
CREATE TABLE disputes (
  id BIGSERIAL PRIMARY KEY,
  gateway_reference TEXT NOT NULL UNIQUE,
  business_id INTEGER NOT NULL REFERENCES businesses (id),
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  mid_id INTEGER NOT NULL REFERENCES mids (id),
  wallet_id INTEGER NOT NULL REFERENCES wallets (id),
  processor_dispute_id TEXT NOT NULL,
  stage TEXT NOT NULL CHECK (stage IN ('chargeback', 'fraud', 'pre-arbitration', 'arbitration')),
  status TEXT NOT NULL CHECK (status IN ('needs_response', 'under_review', 'won', 'lost', 'accepted')),
  processor_status TEXT NOT NULL,
  reason TEXT,
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
  currency CHAR(3) NOT NULL,
  held_minor BIGINT NOT NULL CHECK (held_minor > 0),
  debited_minor BIGINT CHECK (debited_minor >= 0),
  refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0),
  deadline_at TIMESTAMPTZ NOT NULL,
  evidence JSONB,
  resolution TEXT,
  opened_at TIMESTAMPTZ NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  closed_at TIMESTAMPTZ,
  UNIQUE (mid_id, processor_dispute_id),
  CHECK ((status IN ('won', 'lost', 'accepted')) = (closed_at IS NOT NULL))
);
CREATE INDEX disputes_collection ON disputes (collection_id);
CREATE INDEX disputes_business_newest ON disputes (business_id, created_at DESC, id DESC);
CREATE INDEX disputes_open ON disputes (deadline_at) WHERE closed_at IS NULL;

-- The dispute hold: the disputed amount taken from available when a dispute opens (available may go
-- below zero: the merchant owes it), released back when won, or debited when lost or accepted.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('available', 'pending', 'reserved', 'refund_hold', 'disbursement_hold', 'dispute_hold', 'fee_revenue', 'processor_clearing'));

-- A dispute's journals: one hold, then one outcome (released or debited), never two of either, however
-- many prompts arrive at once.
ALTER TABLE journals ADD COLUMN dispute_id BIGINT REFERENCES disputes (id);
CREATE UNIQUE INDEX journals_one_dispute_hold ON journals (dispute_id) WHERE kind = 'dispute_hold';
CREATE UNIQUE INDEX journals_one_dispute_outcome ON journals (dispute_id) WHERE kind IN ('dispute_release', 'dispute_debit');
