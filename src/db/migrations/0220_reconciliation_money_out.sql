-- Reconciliation of money out (docs/reconciliation.md, "Matching"): a statement's refund and payout lines
-- are matched with our refunds and disbursements as its payment lines are with our collections.
-- * reconciliation_lines: two more kinds, a refund the processor paid back to a customer and a payout it
--   paid to a payee (MTN's REFUND and TRANSFER rows; an M-Pesa refund is the Reversal API's, a reversal row).
-- * reconciliation_items: the refund or the disbursement an item is of (an item is of one of a collection, a
--   refund or a disbursement, or of none: money we have no record of); one theirs_missing per refund and per
--   disbursement, however often matching runs.
ALTER TABLE reconciliation_lines DROP CONSTRAINT reconciliation_lines_kind_check;
ALTER TABLE reconciliation_lines ADD CONSTRAINT reconciliation_lines_kind_check CHECK (kind IN ('payment', 'reversal', 'refund', 'payout'));

ALTER TABLE reconciliation_items ADD COLUMN refund_id BIGINT REFERENCES refunds (id);
ALTER TABLE reconciliation_items ADD COLUMN disbursement_id BIGINT REFERENCES disbursements (id);
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_one_subject CHECK (num_nonnulls(collection_id, refund_id, disbursement_id) <= 1);
CREATE UNIQUE INDEX reconciliation_items_one_missing_refund ON reconciliation_items (refund_id) WHERE state = 'theirs_missing';
CREATE UNIQUE INDEX reconciliation_items_one_missing_disbursement ON reconciliation_items (disbursement_id) WHERE state = 'theirs_missing';
-- theirs-missing.sql asks whether an item names the refund or the disbursement already
CREATE INDEX reconciliation_items_refund ON reconciliation_items (refund_id) WHERE refund_id IS NOT NULL;
CREATE INDEX reconciliation_items_disbursement ON reconciliation_items (disbursement_id) WHERE disbursement_id IS NOT NULL;
