-- A COMPLETED collection whose payment the processor reversed on its own (found in its statement and resolved
-- by an operator, docs/reconciliation.md) moves to REVERSED (docs/contract/states.md).
ALTER TABLE collections DROP CONSTRAINT collections_status_check;
ALTER TABLE collections ADD CONSTRAINT collections_status_check
  CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED', 'REVERSED'));

-- The reversal an operator's resolution posts is one per collection, whoever approves and however often.
CREATE UNIQUE INDEX journals_one_reconciliation_reversal ON journals (collection_id) WHERE kind = 'reconciliation_reversal';

-- Matching finds a statement line's collection by the processor's receipt (M-Pesa) or our reference at the
-- processor (MTN's X-Reference-Id, Paystack's reference).
CREATE INDEX processor_requests_mid_receipt ON processor_requests (mid_id, receipt) WHERE receipt IS NOT NULL;
