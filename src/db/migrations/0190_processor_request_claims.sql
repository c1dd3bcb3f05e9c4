-- One engine for every request to a processor (src/processor-requests/engine.ts): a collection's charge, a
-- refund, a payout. Its claims name the process that holds them, as webhook and email claims do (0047), so
-- that when that process stops beating its requests are taken over at once rather than at the end of their
-- lease. Rows in flight when this runs have no name: their lease runs out as before.
ALTER TABLE processor_requests ADD COLUMN claimed_by TEXT;
ALTER TABLE refunds ADD COLUMN claimed_by TEXT;
ALTER TABLE disbursements ADD COLUMN claimed_by TEXT;
-- A refund's and a payout's calls continue the trace of the request that asked for them, as a
-- collection's do (0101). Rows written before this have none: their calls start a trace of their own.
ALTER TABLE refunds ADD COLUMN trace_parent TEXT;
ALTER TABLE disbursements ADD COLUMN trace_parent TEXT;
