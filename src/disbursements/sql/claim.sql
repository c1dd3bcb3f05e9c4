-- Disbursements due a send (clock next_send_at, counter send_attempts) or a status query (next_check_at,
-- checks), claimed for a lease: the clock is pushed past the calls' deadlines, so no two processes call
-- at once. A send's claim marks a queued request 'sending' before any call; was_sending says the claim
-- found it so already: its last worker died with the call perhaps at the processor, and the caller reads
-- it as an unknown outcome (a status query first), never sends it blind. With the MID's sealed
-- credentials.
WITH due AS (
  SELECT id, send_state FROM disbursements WHERE ${clock:name} <= ${now} ORDER BY ${clock:name}, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE disbursements d SET ${clock:name} = ${leaseEnd}, ${counter:name} = d.${counter:name} + 1,
  send_state = CASE WHEN ${send} AND d.status = 'PENDING' AND d.send_state = 'queued' THEN 'sending' ELSE d.send_state END
FROM due
WHERE d.id = due.id
RETURNING d.*, ${send} AND due.send_state = 'sending' AS was_sending,
  (SELECT m.credentials_enc FROM mids m WHERE m.id = d.mid_id) AS credentials_enc
