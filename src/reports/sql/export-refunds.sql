-- A batch of the refunds export: the refund list's filters (${where:raw}, formatted by refundWhere over
-- the refund r and its collection c), newest first like the list, after the last row of the previous batch
-- (keyset on the exact key PostgreSQL gives in page_key: no row twice, none skipped), with its collection's
-- references and the time the money left the wallet (its refund_out journal, posted on COMPLETED).
SELECT x.*, j.created_at AS completed_at
FROM (
  SELECT r.id, r.created_at, r.updated_at, r.gateway_reference, r.merchant_reference,
    c.gateway_reference AS collection_gateway_reference, c.merchant_reference AS collection_merchant_reference,
    r.business_id, r.status, r.pending_reason, r.failure_reason, r.reason, r.amount_minor, r.currency,
    r.account_amount_minor, r.account_currency, r.service_type,
    json_build_array(r.created_at, r.id)::text AS page_key
  FROM refunds r JOIN collections c ON c.id = r.collection_id
  WHERE ${where:raw} AND (r.created_at, r.id) < (${before}::timestamptz, ${before_id}::bigint)
  ORDER BY r.created_at DESC, r.id DESC
  LIMIT ${limit}
) x
LEFT JOIN journals j ON j.refund_id = x.id AND j.kind = 'refund_out'
ORDER BY x.created_at DESC, x.id DESC
