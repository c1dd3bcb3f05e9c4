-- A loosened guard applied, in the audit log under the person (or the operator key) who asked for it: the
-- setting before and after, and when it was asked for.
INSERT INTO audit_log (at, actor_type, actor_user_id, actor_email, action, business_id, target_type, target_id, before, after, request_id)
VALUES (${now}, CASE WHEN ${userId}::int IS NULL THEN 'operator_key' ELSE 'user' END, ${userId}::int,
  CASE WHEN ${userId}::int IS NULL THEN NULL ELSE ${requestedBy} END,
  'applyScheduledGuardChange', ${businessId}, ${targetType}, ${targetId}, ${before}::jsonb, ${after}::jsonb, NULL)
