-- The operator's searches (issue 27): collections of one customer (account_number) or with one
-- merchant_reference across every business, newest first, and audit entries of one action. Each is
-- read through its index in the list's order (created_at DESC, id DESC; id DESC), never by reading the
-- whole table. A gateway_reference is already unique, and the audit log's time filter uses audit_log_at.
-- On a large existing table, create them by hand first with CREATE INDEX CONCURRENTLY (same names):
-- this migration then finds them and does not lock writes.
CREATE INDEX IF NOT EXISTS collections_account_newest ON collections (account_number, created_at DESC, id DESC) WHERE account_number IS NOT NULL;
CREATE INDEX IF NOT EXISTS collections_reference_newest ON collections (merchant_reference, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS audit_log_action ON audit_log (action, id DESC);
-- The overview's count of payments waiting on an operator: held for a decision, or of unknown outcome.
CREATE INDEX IF NOT EXISTS processor_requests_waiting ON processor_requests (state) WHERE state IN ('held', 'unknown');
