-- A refund's webhook notification in the outbox, delivered like a collection's (ordered per refund).
INSERT INTO notifications (collection_id, refund_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
VALUES (${collectionId}, ${refundId}, ${apiTokenId}, ${eventId}, ${sequence}, ${status}, ${body}, ${firstAttemptAt}, ${now}, ${traceParent})
