-- Matching (src/reconciliation/sql/match-lines.sql) finds a statement's refund line by our refund's reference
-- at the processor, else by its vendor_reference on the line's MID, and a payout line our disbursement the
-- same way: the reference has its unique index, the vendor_reference had none, so a line not found by the
-- first was a scan of the table. Through these each lookup of a line is one index scan.
-- On a large existing table, create them by hand first with CREATE INDEX CONCURRENTLY (same names): this
-- migration then finds them and does not lock writes.
CREATE INDEX IF NOT EXISTS refunds_mid_vendor_reference ON refunds (mid_id, vendor_reference) WHERE vendor_reference IS NOT NULL;
CREATE INDEX IF NOT EXISTS disbursements_mid_vendor_reference ON disbursements (mid_id, vendor_reference) WHERE vendor_reference IS NOT NULL;
