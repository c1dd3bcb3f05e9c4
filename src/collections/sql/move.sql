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
-- (one credit journal per collection).
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
credit_journal AS (
  INSERT INTO journals (collection_id, kind, created_at)
  SELECT m.id, 'collection_credit', i.credited_at FROM moved m JOIN input i ON i.n = m.n_ WHERE i.credit ORDER BY m.id
  ON CONFLICT (collection_id) WHERE kind = 'collection_credit' DO NOTHING
  RETURNING id, collection_id
),
credit_postings AS (
  INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind, created_at)
  SELECT j.id, v.account_id, v.amount_minor, v.currency, v.kind, i.credited_at
  FROM unnest(${posting_owners}::int[], ${posting_accounts}::int[], ${posting_amounts}::bigint[], ${posting_currencies}::text[],
    ${posting_kinds}::text[]) WITH ORDINALITY AS v(owner, account_id, amount_minor, currency, kind, k)
  JOIN moved m ON m.n_ = v.owner
  JOIN input i ON i.n = v.owner
  JOIN credit_journal j ON j.collection_id = m.id
  ORDER BY v.k
),
credit_holds AS (
  INSERT INTO ledger_holds (journal_id, wallet_id, bucket, amount_minor, release_at)
  SELECT j.id, v.wallet_id, v.bucket, v.amount_minor, v.release_at
  FROM unnest(${hold_owners}::int[], ${hold_wallet_ids}::int[], ${hold_buckets}::text[], ${hold_amounts}::bigint[],
    ${hold_release_ats}::timestamptz[]) WITH ORDINALITY AS v(owner, wallet_id, bucket, amount_minor, release_at, k)
  JOIN moved m ON m.n_ = v.owner
  JOIN credit_journal j ON j.collection_id = m.id
  ORDER BY v.k
),
notification AS (
  INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at,
    created_at, trace_parent)
  SELECT m.id, m.api_token_id, i.event_id, m.notification_seq, m.status, i.body, i.first_attempt_at, i.notified_at, i.trace_parent
  FROM moved m JOIN input i ON i.n = m.n_ WHERE i.body IS NOT NULL ORDER BY m.n_
),
status_emails AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
  SELECT m.id, v.kind, v.recipient, v.subject, v.text_body, i.emails_at
  FROM unnest(${email_owners}::int[], ${email_kinds}::text[], ${email_recipients}::text[], ${email_subjects}::text[],
    ${email_texts}::text[]) WITH ORDINALITY AS v(owner, kind, recipient, subject, text_body, k)
  JOIN moved m ON m.n_ = v.owner
  JOIN input i ON i.n = v.owner
  ORDER BY v.k
),
certification AS (
  INSERT INTO certification_events (business_id, scenario, gateway_reference, at)
  SELECT m.business_id, i.scenario, m.gateway_reference, m.updated_at
  FROM moved m JOIN input i ON i.n = m.n_ WHERE i.scenario IS NOT NULL ORDER BY m.n_
  ON CONFLICT (business_id, scenario) DO NOTHING
)
SELECT m.*, (NOT i.credit OR EXISTS (SELECT FROM credit_journal j WHERE j.collection_id = m.id)) AS credited_
FROM moved m JOIN input i ON i.n = m.n_
ORDER BY m.n_
