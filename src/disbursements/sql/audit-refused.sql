-- A disbursement call refused for its address, in the audit log under the API token (by its key): the
-- address it came from and the operation. Written on its own: the refusal changes nothing else.
INSERT INTO audit_log (at, actor_type, actor_user_id, actor_email, action, business_id, target_type, target_id, before, after, request_id)
SELECT ${now}, 'api_token', NULL, t.api_key, 'disbursementAddressRefused', t.business_id, 'api_token', t.id::text, NULL, ${after}::jsonb, ${requestId}
FROM api_tokens t WHERE t.id = ${apiTokenId}
