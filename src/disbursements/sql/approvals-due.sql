-- Disbursements whose approval time ran out while nobody decided: the timeout worker cancels each
-- through the one move (which returns their hold), oldest first.
SELECT id FROM disbursements
WHERE status = 'PENDING_APPROVAL' AND approval_expires_at <= ${now}
ORDER BY approval_expires_at, id
LIMIT ${limit}
