-- The operator's disbursements list and export (every business's, newest first, after the last
-- (created_at, id) of the previous page or batch): through disbursements_newest each page reads its rows
-- only, as refunds_newest does for refunds, instead of sorting the whole table each time. (One business's
-- disbursements have disbursements_business_newest.)
-- A disbursement's notifications are one per sequence: its move takes the next sequence in the same
-- statement that changes its state, and a re-send delivers the same row again. The timeline joins its
-- state changes to them on (disbursement_id, sequence), so a second row would show a change twice: the
-- unique index refuses one, and takes the place of the plain index on the same columns.
-- On a large existing table, create both by hand first with CREATE [UNIQUE] INDEX CONCURRENTLY (same
-- names): this migration then finds them and does not lock writes.
CREATE INDEX IF NOT EXISTS disbursements_newest ON disbursements (created_at DESC, id DESC);
CREATE UNIQUE INDEX IF NOT EXISTS notifications_disbursement_sequence ON notifications (disbursement_id, sequence) WHERE disbursement_id IS NOT NULL;
DROP INDEX IF EXISTS notifications_disbursement;
