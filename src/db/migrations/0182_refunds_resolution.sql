-- An operator's decision on a held refund (POST /v1/admin/refunds/{refund_reference}/resolve-held): who
-- decided, when and why, kept on the refund as a collection's processor request keeps its own. The
-- outcome is the refund's final status; all three are null for a refund never resolved by an operator.
ALTER TABLE refunds ADD COLUMN resolution_note TEXT;
ALTER TABLE refunds ADD COLUMN resolved_by TEXT;
ALTER TABLE refunds ADD COLUMN resolved_at TIMESTAMPTZ;
