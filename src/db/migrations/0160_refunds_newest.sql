-- The operator's refunds export (docs/reports.md) reads every business's refunds newest first, a batch at
-- a time after the last (created_at, id): through this index each batch reads its rows only, as
-- collections_newest does for the collections export, instead of sorting the whole table each time.
-- (One business's refunds have refunds_business_newest.) On a large existing table, create it by hand
-- first with CREATE INDEX CONCURRENTLY (same name): this migration then finds it and does not lock writes.
CREATE INDEX IF NOT EXISTS refunds_newest ON refunds (created_at DESC, id DESC);
