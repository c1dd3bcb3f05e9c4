-- A disbursement in the audit log, written in its transaction: the API token that asked (by its key),
-- the disbursement as accepted.
INSERT INTO audit_log (at, actor_type, actor_user_id, actor_email, action, business_id, target_type, target_id, before, after, request_id)
SELECT ${now}, 'api_token', NULL, t.api_key, 'createDisbursement', ${businessId}, 'disbursement', ${gatewayReference}, NULL, ${after}::jsonb, ${requestId}
FROM api_tokens t WHERE t.id = ${apiTokenId}
