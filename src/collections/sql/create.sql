-- A request-to-pay's write, one statement and one constant text (prepared on a real server): the collection,
-- its card's first sighting, its scheduled provider report or its request to a real processor, and its start
-- notice email. None of them when the merchant_reference is taken (then the row holding it, when this
-- statement sees it: a replay) or when the configuration is no longer at the version its inputs were read at.
-- Optional parts are guarded, never left out: no card fingerprint, no report outcome, no processor MID or
-- empty email arrays write nothing. Answers one row: current_ (the configuration guard held), created_
-- (true: inserted; false: the existing row; NULL: taken by a row this statement cannot see yet) and the row.
WITH config_current AS (SELECT FROM config_version WHERE version = ${config_version}::bigint),
created AS (
  INSERT INTO collections (business_id, api_token_id, gateway_reference, merchant_reference, request_hash, payment_method,
    status, message, request_amount_minor, request_currency, account_amount_minor, account_currency, fx_rate, fee_minor,
    total_credit_minor, customer_charged, account_number, account_name, account_email, narration, redirect_url,
    institution_name, payment_url, instructions, mid_id, routing, card_masked, card_fingerprint, page_token, expires_at,
    created_at, updated_at)
  SELECT ${business_id}::int, ${api_token_id}::int, ${gateway_reference}::text, ${merchant_reference}::text, ${request_hash}::text,
    ${payment_method}::text, ${status}::text, ${message}::text, ${request_amount_minor}::bigint, ${request_currency}::char(3),
    ${account_amount_minor}::bigint, ${account_currency}::char(3), ${fx_rate}::numeric, ${fee_minor}::bigint,
    ${total_credit_minor}::bigint, ${customer_charged}::boolean, ${account_number}::text, ${account_name}::text,
    ${account_email}::text, ${narration}::text, ${redirect_url}::text, ${institution_name}::text, ${payment_url}::text,
    ${instructions}::jsonb, ${mid_id}::int, ${routing}::jsonb, ${card_masked}::text, ${card_fingerprint}::text,
    ${page_token}::text, ${expires_at}::timestamptz, ${created_at}::timestamptz, ${created_at}::timestamptz
  FROM config_current
  ON CONFLICT (business_id, merchant_reference) DO NOTHING
  RETURNING *
),
seen AS (
  INSERT INTO card_fingerprints (fingerprint, first_seen_at)
  SELECT c.card_fingerprint, c.created_at FROM created c WHERE c.card_fingerprint IS NOT NULL
  ON CONFLICT DO NOTHING
),
report AS (
  INSERT INTO provider_events (collection_id, outcome, due_at)
  SELECT c.id, ${report_outcome}::text, ${report_at}::timestamptz FROM created c WHERE ${report_outcome}::text IS NOT NULL
),
preq AS (
  INSERT INTO processor_requests (collection_id, mid_id, service_type, reference, callback_token, amount_minor, currency,
    next_send_at, created_at, updated_at, trace_parent)
  SELECT c.id, c.mid_id, ${charge_service_type}::text, ${charge_reference}::text, ${charge_callback_token}::text,
    ${charge_amount_minor}::bigint, ${charge_currency}::char(3), ${charge_send_at}::timestamptz, c.created_at, c.created_at,
    ${trace_parent}::text
  FROM created c WHERE ${charge_service_type}::text IS NOT NULL
),
start_email AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
  SELECT c.id, v.kind, v.recipient, v.subject, v.text_body, c.created_at
  FROM created c
  CROSS JOIN unnest(${email_kinds}::text[], ${email_recipients}::text[], ${email_subjects}::text[], ${email_texts}::text[])
    WITH ORDINALITY AS v(kind, recipient, subject, text_body, n)
  ORDER BY v.n
)
SELECT g.current_, r.*
FROM (SELECT EXISTS (SELECT FROM config_current) AS current_) g
LEFT JOIN (
  SELECT true AS created_, c.* FROM created c
  UNION ALL
  SELECT false, e.* FROM collections e
  WHERE e.business_id = ${business_id}::int AND e.merchant_reference = ${merchant_reference}::text AND NOT EXISTS (SELECT FROM created)
) r ON true
