-- Reconciliation (docs/reconciliation.md): what the processors say they moved, per MID, set against what we
-- recorded.
-- * reconciliation_statements: one per file or settlement taken in. Taking the same one twice creates
--   nothing: its content hash is unique per MID.
-- * reconciliation_lines: the money lines of a statement (payments and reversals; fee and balance rows are
--   not kept). A processor's line reference is unique per MID, so a line in two overlapping statements is
--   kept once.
-- * reconciliation_items: what matching decided, one per line, or per collection the processor has not
--   reported after the MID's deadline (theirs_missing). A decided item is never decided again; an operator's
--   resolution is written on it (an adjustment journal through the ledger, the collection's state change).
-- * reconciliation_settings: per MID, the deadline of theirs_missing and the amount above which a
--   resolution waits for a second operator's approval.
CREATE TABLE reconciliation_statements (
  id BIGSERIAL PRIMARY KEY,
  mid_id INTEGER NOT NULL REFERENCES mids (id),
  source TEXT NOT NULL CHECK (source IN ('mpesa_statement', 'mtn_partner_report', 'paystack_settlement')),
  content_hash TEXT NOT NULL,
  line_count INTEGER NOT NULL DEFAULT 0,
  first_at TIMESTAMPTZ,
  last_at TIMESTAMPTZ,
  taken_by TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (mid_id, content_hash)
);

CREATE TABLE reconciliation_lines (
  id BIGSERIAL PRIMARY KEY,
  statement_id BIGINT NOT NULL REFERENCES reconciliation_statements (id),
  mid_id INTEGER NOT NULL REFERENCES mids (id),
  reference TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('payment', 'reversal')),
  -- a reversal's: the reference of the payment it reverses
  original_reference TEXT,
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
  currency CHAR(3) NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  UNIQUE (mid_id, reference),
  CHECK ((kind = 'reversal') = (original_reference IS NOT NULL))
);
CREATE INDEX reconciliation_lines_statement ON reconciliation_lines (statement_id);

CREATE TABLE reconciliation_items (
  id BIGSERIAL PRIMARY KEY,
  mid_id INTEGER NOT NULL REFERENCES mids (id),
  business_id INTEGER REFERENCES businesses (id),
  day DATE NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('matched', 'amount_over', 'amount_under', 'currency_mismatch', 'ours_missing', 'theirs_missing', 'reversed_externally')),
  line_id BIGINT UNIQUE REFERENCES reconciliation_lines (id),
  collection_id BIGINT REFERENCES collections (id),
  reference TEXT NOT NULL,
  ours_minor BIGINT,
  ours_currency CHAR(3),
  theirs_minor BIGINT,
  theirs_currency CHAR(3),
  created_at TIMESTAMPTZ NOT NULL,
  -- the operator's resolution: asked (awaiting_approval above the MID's threshold), then resolved
  resolution TEXT CHECK (resolution IN ('awaiting_approval', 'resolved')),
  action TEXT CHECK (action IN ('reverse', 'acknowledge')),
  reason TEXT,
  requested_by TEXT,
  requested_at TIMESTAMPTZ,
  approved_by TEXT,
  resolved_at TIMESTAMPTZ,
  CHECK ((line_id IS NULL) = (state = 'theirs_missing')),
  CHECK ((resolution IS NULL) = (action IS NULL)),
  -- four eyes: the approver is not the person who asked
  CHECK (approved_by IS NULL OR approved_by <> requested_by)
);
-- one theirs_missing per collection, whatever runs of matching
CREATE UNIQUE INDEX reconciliation_items_one_missing ON reconciliation_items (collection_id) WHERE state = 'theirs_missing';
CREATE INDEX reconciliation_items_day ON reconciliation_items (mid_id, day, id);
CREATE INDEX reconciliation_items_open ON reconciliation_items (mid_id, id) WHERE resolution IS DISTINCT FROM 'resolved' AND state <> 'matched';

CREATE TABLE reconciliation_settings (
  mid_id INTEGER PRIMARY KEY REFERENCES mids (id),
  theirs_missing_days INTEGER NOT NULL DEFAULT 3 CHECK (theirs_missing_days BETWEEN 1 AND 60),
  approval_threshold_minor BIGINT CHECK (approval_threshold_minor IS NULL OR approval_threshold_minor >= 0),
  updated_by TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
