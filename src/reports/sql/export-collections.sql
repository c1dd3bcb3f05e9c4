-- A batch of the collections export: the list's filters (${where:raw}, formatted by collectionWhere over the
-- collections' own columns), newest first like the list, after the last row of the previous batch
-- (keyset on the exact key PostgreSQL gives in page_key: no row twice, none skipped), with the time each was credited (its credit journal)
-- and what a converted one was converted at: the reference rate, the markup, the source and as-of beside the rate applied.
SELECT c.id, c.created_at, c.updated_at, j.created_at AS credited_at, c.gateway_reference, c.merchant_reference,
  c.business_id, c.status, c.payment_method, c.request_amount_minor, c.request_currency, c.fx_rate,
  c.fx_reference_rate, c.fx_markup, c.fx_source, c.fx_as_of,
  c.account_amount_minor, c.account_currency, c.fee_minor, c.total_credit_minor, c.customer_charged,
  c.account_number, c.account_name, c.account_email, c.narration, c.institution_name, c.message,
  json_build_array(c.created_at, c.id)::text AS page_key
FROM (
  SELECT * FROM collections
  WHERE ${where:raw} AND (created_at, id) < (${before}::timestamptz, ${before_id}::bigint)
  ORDER BY created_at DESC, id DESC
  LIMIT ${limit}
) c
LEFT JOIN journals j ON j.collection_id = c.id AND j.kind = 'collection_credit'
ORDER BY c.created_at DESC, c.id DESC
