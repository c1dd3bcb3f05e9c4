-- Disbursements due a send (clock next_send_at, counter send_attempts) or a status query (next_check_at,
-- checks), claimed for a lease: the clock is pushed past the calls' deadlines, so no two processes call
-- at once, and a call whose worker died is made again after the lease, under the same reference. With
-- the MID's sealed credentials.
WITH due AS (
  SELECT id FROM disbursements WHERE ${clock:name} <= ${now} ORDER BY ${clock:name}, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
)
UPDATE disbursements d SET ${clock:name} = ${leaseEnd}, ${counter:name} = d.${counter:name} + 1
FROM due
WHERE d.id = due.id
RETURNING d.*, (SELECT m.credentials_enc FROM mids m WHERE m.id = d.mid_id) AS credentials_enc
