-- The processor's answer about the refunded payment says to wait (still in its queue): noted; the
-- refund is asked about again when next_send_at comes.
UPDATE refunds SET last_error = ${lastError} WHERE id = ${refundId} AND original_confirmed_at IS NULL
