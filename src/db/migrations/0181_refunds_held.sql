-- A refund held for an operator: the processor answered something that settles nothing by itself (M-Pesa's
-- reversal Result R000001 "already reversed": the customer may have the money back already, so neither
-- completing the refund nor returning its hold to the merchant is safe). 'held' is neither sent nor asked
-- about again; its money stays in the refund's hold; held_reason says why, for the operator.
ALTER TABLE refunds DROP CONSTRAINT refunds_send_state_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_send_state_check
  CHECK (send_state IN ('queued', 'sending', 'sent', 'unknown', 'held', 'settled'));
ALTER TABLE refunds ADD COLUMN held_reason TEXT;
