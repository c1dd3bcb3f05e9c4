-- A disbursement's entries in the audit log (asked for with an API token or in the dashboard, approved,
-- rejected), oldest first: its timeline's actions and who took them.
SELECT at, action, actor_type, actor_email, after ->> 'transaction_status' AS transaction_status
FROM audit_log
WHERE target_type = 'disbursement' AND target_id = ${gatewayReference} AND business_id = ${businessId}
  AND action IN ('createDisbursement', 'createAdminDisbursement', 'approveDisbursement', 'rejectDisbursement')
ORDER BY at, id
