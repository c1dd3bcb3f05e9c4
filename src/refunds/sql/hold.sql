-- A refund held for an operator (docs/contract/refunds.md): the processor answered something that
-- settles nothing by itself (${reason} says what). Its state, and its money in the refund's hold, stay as
-- they are; it is neither sent nor asked about again until an operator decides, and a worker's claim on it is let
-- go (the answer of a call under way then changes nothing). Nothing when it is final
-- or held already (a repeated answer).
UPDATE refunds SET send_state = 'held', held_reason = ${reason}, next_send_at = NULL, next_check_at = NULL, last_error = NULL, claimed_by = NULL
WHERE id = ${refundId} AND status IN ('PENDING', 'PROCESSING') AND send_state <> 'held'
RETURNING id, gateway_reference
