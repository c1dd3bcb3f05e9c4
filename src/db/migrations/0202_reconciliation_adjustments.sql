-- An operator resolves an amount_over or amount_under reconciliation item (docs/reconciliation.md) by an
-- adjustment: a journal through the ledger moving the difference between the wallet and processor clearing.
-- This file sorts before 0210, which creates reconciliation_items: a new database applies it first (0210
-- then creates the items with `adjust` allowed); a database that has 0210 already gets the action widened
-- here.
DO $$
BEGIN
  IF to_regclass('reconciliation_items') IS NOT NULL THEN
    ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_action_check;
    ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_action_check CHECK (action IN ('reverse', 'adjust', 'acknowledge'));
  END IF;
END $$;

-- One adjustment per collection, so per item (an amount item is its collection's one payment line), whoever
-- approves and however often.
CREATE UNIQUE INDEX journals_one_reconciliation_adjustment ON journals (collection_id) WHERE kind = 'reconciliation_adjustment';
