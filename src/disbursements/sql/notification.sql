-- A disbursement's webhook notification in the outbox, delivered like a collection's (ordered per disbursement).
INSERT INTO notifications (disbursement_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
VALUES (${disbursementId}, ${apiTokenId}, ${eventId}, ${sequence}, ${status}, ${body}, ${firstAttemptAt}, ${now}, ${traceParent})
