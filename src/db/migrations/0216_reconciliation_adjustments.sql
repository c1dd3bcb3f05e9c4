-- An operator resolves an amount_over or amount_under reconciliation item (docs/reconciliation.md) by an
-- adjustment: a journal through the ledger moving the difference between the wallet and processor clearing.
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_action_check;
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_action_check CHECK (action IN ('reverse', 'adjust', 'acknowledge'));

-- One adjustment per collection, so per item (an amount item is its collection's one payment line), whoever
-- approves and however often.
CREATE UNIQUE INDEX journals_one_reconciliation_adjustment ON journals (collection_id) WHERE kind = 'reconciliation_adjustment';
