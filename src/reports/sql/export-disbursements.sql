-- A batch of the disbursements export: the disbursement list's filters (${where:raw}, formatted by
-- disbursementWhere over the disbursement d), newest first like the list, after the last row of the
-- previous batch (keyset on the exact key PostgreSQL gives in page_key: no row twice, none skipped).
SELECT d.id, d.created_at, d.updated_at, d.gateway_reference, d.merchant_reference, d.business_id, d.status,
  d.pending_reason, d.failure_reason, d.payment_method, d.amount_minor, d.fee_minor, d.currency,
  d.account_number, d.bank_code, d.account_name, d.narration, d.message, d.service_type,
  json_build_array(d.created_at, d.id)::text AS page_key
FROM disbursements d
WHERE ${where:raw} AND (d.created_at, d.id) < (${before}::timestamptz, ${before_id}::bigint)
ORDER BY d.created_at DESC, d.id DESC
LIMIT ${limit}
