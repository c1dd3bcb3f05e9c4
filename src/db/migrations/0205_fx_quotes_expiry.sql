-- Expired FX quotes are deleted FX_QUOTE_RETENTION_DAYS after their expiry, oldest first, by the retention
-- worker (src/workers/retention.ts); this index finds them without reading the table.
CREATE INDEX fx_quotes_expires_at ON fx_quotes (expires_at);
