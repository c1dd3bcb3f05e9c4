-- The state change of a batch of collections (group commit, src/db/batcher.ts; a single move is a batch of
-- one), one statement and one constant text (prepared on a real server), atomic without a transaction. Each
-- move's values are one element of each per-move array, in the same place n (1-based); its postings, holds
-- and emails are the elements of the flattened arrays whose *_owners is its place. Per move: the change
-- itself, guarded to apply only to the row as read (still in the state it moves from, same notification_seq
-- and API token), and everything it writes, each only from its moved row: the credit journal with its
-- postings and holds (a completion), the webhook notification (a collection with an API token: it takes the
-- collection's next sequence), the emails and the certification record (the sandbox). Optional parts are
-- guarded, never left out: credit false, no owned elements, a NULL body or scenario write nothing. The batch's
-- rows are locked first, in id order whatever plan the update gets, so two batches never wait for each other
-- in a circle; a collection twice in one batch is changed at most once: the guard makes the other a miss. Answers one row per move that applied (n_ its place, none when its
-- guard found the row changed) and credited_: false when a completion found the collection credited already
-- (one credit journal per collection). The credit's CTEs are the ledger's (ledger/sql/credit-ctes.sql), the
-- notification's and emails' the notifications' (notifications/sql/status-change-ctes.sql, collection-emails-cte.sql), and
-- the payment links' (payment-links/sql/completion-cte.sql: a completion counted on its link, the link's end
-- told by the one that brings it to its limit), included at load.
WITH input AS (
  SELECT * FROM unnest(${id}::bigint[], ${from}::text[], ${notification_seq}::int[], ${api_token_id}::int[],
    ${status}::text[], ${message}::text[], ${updated_at}::timestamptz[], ${taken}::int[],
    ${late_completed_at}::timestamptz[], ${credit}::boolean[], ${credited_at}::timestamptz[], ${event_id}::text[],
    ${body}::text[], ${first_attempt_at}::timestamptz[], ${notified_at}::timestamptz[], ${trace_parent}::text[],
    ${emails_at}::timestamptz[], ${scenario}::text[])
    WITH ORDINALITY AS i(id, from_, notification_seq, api_token_id, status, message, updated_at, taken, late_completed_at,
      credit, credited_at, event_id, body, first_attempt_at, notified_at, trace_parent, emails_at, scenario, n)
),
locked AS (
  SELECT c.id FROM collections c WHERE c.id = ANY(${id}::bigint[]) ORDER BY c.id FOR UPDATE
),
moved AS (
  UPDATE collections c SET status = i.status, message = i.message, updated_at = i.updated_at,
    notification_seq = c.notification_seq + i.taken, late_completed_at = i.late_completed_at
  FROM input i
  WHERE c.id = ANY(${id}::bigint[]) AND c.id = i.id AND c.id IN (SELECT l.id FROM locked l) AND c.status = i.from_
    AND c.notification_seq = i.notification_seq AND c.api_token_id IS NOT DISTINCT FROM i.api_token_id
  RETURNING c.*, i.n AS n_
),
${@credit},
${@notices},
${@links},
certification AS (
  INSERT INTO certification_events (business_id, scenario, gateway_reference, at)
  SELECT m.business_id, i.scenario, m.gateway_reference, m.updated_at
  FROM moved m JOIN input i ON i.n = m.n_ WHERE i.scenario IS NOT NULL ORDER BY m.n_
  ON CONFLICT (business_id, scenario) DO NOTHING
)
SELECT m.*, (NOT i.credit OR EXISTS (SELECT FROM credit_journal j WHERE j.collection_id = m.id)) AS credited_
FROM moved m JOIN input i ON i.n = m.n_
ORDER BY m.n_
