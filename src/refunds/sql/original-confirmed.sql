-- The processor's answer about the refunded payment matched the collection: the refund is sent now.
UPDATE refunds SET original_confirmed_at = ${now}, next_send_at = ${now}, last_error = NULL
WHERE id = ${refundId} AND status = 'PENDING' AND send_state = 'queued' AND original_confirmed_at IS NULL
RETURNING id
