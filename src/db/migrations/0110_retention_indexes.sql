-- History that may be deleted after a retention period (src/workers/retention.ts, docs/retention.md):
-- the delivery log of finished webhook notifications, emails that were sent or given up, and audit
-- entries. These indexes let the retention worker find the oldest rows without reading the whole table.
-- On a large existing table, create them by hand first with CREATE INDEX CONCURRENTLY (same names):
-- this migration then finds them and does not lock writes.
CREATE INDEX IF NOT EXISTS notification_attempts_at ON notification_attempts (at);
CREATE INDEX IF NOT EXISTS emails_finished_created ON emails (created_at) WHERE sent_at IS NOT NULL OR gave_up_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at);
