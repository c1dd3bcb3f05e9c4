-- Every change of a disbursement's state, written by its one move (the same statement), so that its
-- timeline shows each change whoever asked for it: a disbursement asked for in the dashboard notifies no
-- webhook, and the disbursement's row keeps only its latest state. notification_sequence is the webhook
-- notification's sequence of the change when an API token asked for the disbursement, NULL otherwise.
CREATE TABLE disbursement_state_changes (
  id BIGSERIAL PRIMARY KEY,
  disbursement_id BIGINT NOT NULL REFERENCES disbursements (id),
  status TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL,
  notification_sequence INTEGER
);
CREATE INDEX disbursement_state_changes_of ON disbursement_state_changes (disbursement_id, at, id);
-- The changes made before this table: a token's disbursement has one notification per change (a
-- dashboard's had none to learn them from: its timeline starts with the next change).
INSERT INTO disbursement_state_changes (disbursement_id, status, at, notification_sequence)
SELECT disbursement_id, transaction_status, created_at, sequence
FROM notifications
WHERE disbursement_id IS NOT NULL
ORDER BY disbursement_id, sequence;
