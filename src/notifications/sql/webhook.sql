-- A webhook notification in the outbox, in the transaction of the change it tells of: a collection's, a
-- refund's or a dispute's (each with its collection) or a disbursement's, delivered by the webhook worker in order per record.
INSERT INTO notifications (collection_id, refund_id, dispute_id, disbursement_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
VALUES (${collectionId}, ${refundId}, ${disputeId}, ${disbursementId}, ${apiTokenId}, ${eventId}, ${sequence}, ${status}, ${body}, ${firstAttemptAt}, ${now}, ${traceParent})
