-- An API token's action in the audit log, in the caller's transaction: the token by its key, its business,
-- what it did to which target (the token itself when none is named), and what that became.
INSERT INTO audit_log (at, actor_type, actor_user_id, actor_email, action, business_id, target_type, target_id, before, after, request_id)
SELECT ${now}, 'api_token', NULL, t.api_key, ${action}, t.business_id, ${targetType}, COALESCE(${targetId}::text, t.id::text), NULL, ${after}::jsonb, ${requestId}
FROM api_tokens t WHERE t.id = ${apiTokenId}
