-- The processor was asked about the refunded payment (its answer comes to the callback URL naming
-- ${queryReference}, kept with the earlier queries' ids); the refund is asked about again at
-- ${nextSendAt} unless an answer comes first. Queued again: asking was only reading. Nothing for a refund
-- held for an operator meanwhile: it stays held until the operator decides.
UPDATE refunds SET original_query_references = array_append(original_query_references, ${queryReference}), next_send_at = ${nextSendAt},
  send_state = 'queued', last_error = NULL, pending_reason = 'awaiting_processor'
WHERE id = ${refundId} AND status = 'PENDING' AND original_confirmed_at IS NULL AND send_state <> 'held'
