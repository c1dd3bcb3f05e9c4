-- A collection's state change, one statement and one constant text (prepared on a real server), atomic
-- without a transaction: the change itself, guarded to apply only to the row as read (still in the state
-- it moves from, same notification_seq and API token), and everything it writes, each only from the moved row:
-- the credit journal with its postings and holds (a completion), the webhook notification (a collection
-- with an API token: it takes the collection's next sequence), the emails and the certification record
-- (the sandbox). Optional parts are guarded, never left out: credit false, empty arrays, a NULL body or
-- scenario write nothing. Answers the moved row (none when the guard found it changed) and credited_: false
-- when a completion found the collection credited already (one credit journal per collection).
WITH moved AS (
  UPDATE collections SET status = ${status}::text, message = ${message}::text, updated_at = ${updated_at}::timestamptz,
    notification_seq = notification_seq + ${taken}::int, late_completed_at = ${late_completed_at}::timestamptz
  WHERE id = ${id}::bigint AND status = ${from}::text AND notification_seq = ${notification_seq}::int
    AND api_token_id IS NOT DISTINCT FROM ${api_token_id}::int
  RETURNING *
),
credit_journal AS (
  INSERT INTO journals (collection_id, kind, created_at)
  SELECT m.id, 'collection_credit', ${credited_at}::timestamptz FROM moved m WHERE ${credit}::boolean
  ON CONFLICT (collection_id) WHERE kind = 'collection_credit' DO NOTHING
  RETURNING id
),
credit_postings AS (
  INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind, created_at)
  SELECT j.id, v.account_id, v.amount_minor, v.currency, v.kind, ${credited_at}::timestamptz
  FROM credit_journal j
  CROSS JOIN unnest(${posting_accounts}::int[], ${posting_amounts}::bigint[], ${posting_currencies}::text[], ${posting_kinds}::text[])
    WITH ORDINALITY AS v(account_id, amount_minor, currency, kind, n)
  ORDER BY v.n
),
credit_holds AS (
  INSERT INTO ledger_holds (journal_id, wallet_id, bucket, amount_minor, release_at)
  SELECT j.id, ${hold_wallet_id}::int, v.bucket, v.amount_minor, v.release_at
  FROM credit_journal j
  CROSS JOIN unnest(${hold_buckets}::text[], ${hold_amounts}::bigint[], ${hold_release_ats}::timestamptz[])
    WITH ORDINALITY AS v(bucket, amount_minor, release_at, n)
  ORDER BY v.n
),
notification AS (
  INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at,
    created_at, trace_parent)
  SELECT m.id, m.api_token_id, ${event_id}::text, m.notification_seq, m.status, ${body}::text,
    ${first_attempt_at}::timestamptz, ${notified_at}::timestamptz, ${trace_parent}::text
  FROM moved m WHERE ${body}::text IS NOT NULL
),
status_emails AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
  SELECT m.id, v.kind, v.recipient, v.subject, v.text_body, ${emails_at}::timestamptz
  FROM moved m
  CROSS JOIN unnest(${email_kinds}::text[], ${email_recipients}::text[], ${email_subjects}::text[], ${email_texts}::text[])
    WITH ORDINALITY AS v(kind, recipient, subject, text_body, n)
  ORDER BY v.n
),
certification AS (
  INSERT INTO certification_events (business_id, scenario, gateway_reference, at)
  SELECT m.business_id, ${scenario}::text, m.gateway_reference, m.updated_at FROM moved m WHERE ${scenario}::text IS NOT NULL
  ON CONFLICT (business_id, scenario) DO NOTHING
)
SELECT m.*, (NOT ${credit}::boolean OR EXISTS (SELECT FROM credit_journal)) AS credited_
FROM moved m
