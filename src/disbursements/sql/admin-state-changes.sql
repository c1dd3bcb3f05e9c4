-- A disbursement's changes of state, oldest first, each with how its webhook notification's delivery went
-- when an API token asked for the disbursement (no notification: NULL sequence and delivery columns).
SELECT c.at, c.status AS transaction_status, c.notification_sequence AS sequence, n.delivered_at, n.gave_up_at
FROM disbursement_state_changes c
LEFT JOIN notifications n ON n.disbursement_id = c.disbursement_id AND n.sequence = c.notification_sequence
WHERE c.disbursement_id = ${disbursementId}
ORDER BY c.at, c.id
