-- Request-to-pay's write for a batch of requests (group commit, src/db/batcher.ts), one statement and one
-- constant text (prepared on a real server): each request's values come as one element of each array, in
-- the same place. For each request: the collection, its card's first sighting, its scheduled provider
-- report or its request to a real processor, and its start notice email. None of them for a request whose
-- merchant_reference is taken (then the row holding it, when this statement sees it: a replay) or whose
-- configuration is no longer at the version its inputs were read at; the other requests of the batch are
-- written all the same. Optional parts are guarded, never left out: no card fingerprint, no report outcome
-- or no processor service type writes nothing for that request; its emails are the elements of the email
-- arrays whose email_owners is its place (1-based). Answers one row a request, in their order: n_ (its place),
-- current_ (its configuration guard held), created_ (true: inserted; false: the existing row; NULL: taken by
-- a row this statement cannot see, another transaction's or another request's of this same batch) and the row.
-- The emails' CTEs are the notifications' (notifications/sql/start-emails-cte.sql, collection-emails-cte.sql),
-- included at load.
WITH input AS (
  SELECT * FROM unnest(${config_version}::bigint[], ${business_id}::int[], ${api_token_id}::int[],
    ${gateway_reference}::text[], ${merchant_reference}::text[], ${request_hash}::text[], ${payment_method}::text[],
    ${status}::text[], ${message}::text[], ${request_amount_minor}::bigint[], ${request_currency}::char(3)[],
    ${account_amount_minor}::bigint[], ${account_currency}::char(3)[], ${fx_rate}::numeric[], ${fx_reference_rate}::numeric[],
    ${fx_markup}::numeric[], ${fx_source}::text[], ${fx_as_of}::timestamptz[], ${fee_minor}::bigint[],
    ${total_credit_minor}::bigint[], ${customer_charged}::boolean[], ${account_number}::text[], ${account_name}::text[],
    ${account_email}::text[], ${narration}::text[], ${redirect_url}::text[], ${institution_name}::text[],
    ${payment_url}::text[], ${instructions}::jsonb[], ${mid_id}::int[], ${routing}::jsonb[], ${card_masked}::text[],
    ${card_fingerprint}::text[], ${page_token}::text[], ${expires_at}::timestamptz[], ${created_at}::timestamptz[],
    ${report_outcome}::text[], ${report_at}::timestamptz[], ${charge_service_type}::text[], ${charge_reference}::text[],
    ${charge_callback_token}::text[], ${charge_amount_minor}::bigint[], ${charge_currency}::char(3)[],
    ${charge_send_at}::timestamptz[], ${trace_parent}::text[])
    WITH ORDINALITY AS i(config_version, business_id, api_token_id, gateway_reference, merchant_reference, request_hash,
      payment_method, status, message, request_amount_minor, request_currency, account_amount_minor, account_currency,
      fx_rate, fx_reference_rate, fx_markup, fx_source, fx_as_of, fee_minor, total_credit_minor, customer_charged, account_number,
      account_name, account_email, narration, redirect_url, institution_name, payment_url, instructions, mid_id, routing, card_masked, card_fingerprint, page_token,
      expires_at, created_at, report_outcome, report_at, charge_service_type, charge_reference, charge_callback_token,
      charge_amount_minor, charge_currency, charge_send_at, trace_parent, n)
),
config_current AS (SELECT i.n FROM input i WHERE EXISTS (SELECT FROM config_version v WHERE v.version = i.config_version)),
created AS (
  INSERT INTO collections (business_id, api_token_id, gateway_reference, merchant_reference, request_hash, payment_method,
    status, message, request_amount_minor, request_currency, account_amount_minor, account_currency, fx_rate, fx_reference_rate, fx_markup,
    fx_source, fx_as_of, fee_minor, total_credit_minor, customer_charged, account_number, account_name, account_email, narration, redirect_url,
    institution_name, payment_url, instructions, mid_id, routing, card_masked, card_fingerprint, page_token, expires_at,
    created_at, updated_at)
  SELECT i.business_id, i.api_token_id, i.gateway_reference, i.merchant_reference, i.request_hash, i.payment_method, i.status,
    i.message, i.request_amount_minor, i.request_currency, i.account_amount_minor, i.account_currency, i.fx_rate, i.fx_reference_rate,
    i.fx_markup, i.fx_source, i.fx_as_of, i.fee_minor,
    i.total_credit_minor, i.customer_charged, i.account_number, i.account_name, i.account_email, i.narration, i.redirect_url,
    i.institution_name, i.payment_url, i.instructions, i.mid_id, i.routing, i.card_masked, i.card_fingerprint, i.page_token,
    i.expires_at, i.created_at, i.created_at
  FROM input i JOIN config_current k ON k.n = i.n
  -- one order for every batch, so two batches holding the same references never wait for each other in a circle
  ORDER BY i.business_id, i.merchant_reference, i.n
  ON CONFLICT (business_id, merchant_reference) DO NOTHING
  RETURNING *
),
made AS (SELECT i.*, c.id FROM created c JOIN input i ON i.gateway_reference = c.gateway_reference),
seen AS (
  INSERT INTO card_fingerprints (fingerprint, first_seen_at)
  SELECT m.card_fingerprint, min(m.created_at) FROM made m WHERE m.card_fingerprint IS NOT NULL GROUP BY m.card_fingerprint
  ON CONFLICT DO NOTHING
),
report AS (
  INSERT INTO provider_events (collection_id, outcome, due_at)
  SELECT m.id, m.report_outcome, m.report_at FROM made m WHERE m.report_outcome IS NOT NULL ORDER BY m.n
),
preq AS (
  INSERT INTO processor_requests (collection_id, mid_id, service_type, reference, callback_token, amount_minor, currency,
    next_send_at, created_at, updated_at, trace_parent)
  SELECT m.id, m.mid_id, m.charge_service_type, m.charge_reference, m.charge_callback_token, m.charge_amount_minor,
    m.charge_currency, m.charge_send_at, m.created_at, m.created_at, m.trace_parent
  FROM made m WHERE m.charge_service_type IS NOT NULL ORDER BY m.n
),
${@startEmails}
SELECT i.n AS n_, EXISTS (SELECT FROM config_current k WHERE k.n = i.n) AS current_, r.*
FROM input i
LEFT JOIN LATERAL (
  SELECT true AS created_, c.* FROM created c WHERE c.gateway_reference = i.gateway_reference
  UNION ALL
  SELECT false, e.* FROM collections e
  WHERE e.business_id = i.business_id AND e.merchant_reference = i.merchant_reference
    AND NOT EXISTS (SELECT FROM created c WHERE c.gateway_reference = i.gateway_reference)
) r ON true
ORDER BY i.n
