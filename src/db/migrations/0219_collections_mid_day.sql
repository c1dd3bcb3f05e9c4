-- The sandbox's day statement reads one MID's completed payments of one UTC day (src/sandbox/statements.ts),
-- and its simulated issuer one MID's disputed payments since a time (src/sandbox/disputes.ts). Without this
-- index both go through collections_newest, reading every MID's payments of the period to keep one MID's;
-- through it each reads its MID's rows of the period only.
-- On a large existing table, create it by hand first with CREATE INDEX CONCURRENTLY (same name): this
-- migration then finds it and does not lock writes.
CREATE INDEX IF NOT EXISTS collections_mid_created ON collections (mid_id, created_at);
