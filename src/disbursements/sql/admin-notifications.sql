-- A disbursement's webhook notifications (one per change of state after the first), in sequence, with how
-- their delivery went.
SELECT created_at, sequence, transaction_status, delivered_at, gave_up_at
FROM notifications
WHERE disbursement_id = ${disbursementId}
ORDER BY sequence
