-- A page of a wallet's statement: one line per journal that moved the wallet in [${from}, ${to}), oldest
-- first (time, then journal id), after the line (${after}, ${after_journal}) when a cursor gave one. The
-- change to each kind of the wallet's accounts, the fee the journal took (its fee_revenue postings) and
-- its reference: a refund's or a disbursement's gateway_reference for their journals, the journal's own
-- `reference` when its table has one (to_jsonb reads a column that may not exist without naming it), else
-- its collection's gateway_reference; beside it the merchant's own reference of the same refund, disbursement
-- or collection (null on a line of none, as a journal that names only its own reference). Every line of a collection reads what the customer paid and what it
-- was converted at from the same row; statement.ts shows them on the credit of a converted collection only
-- (its collection_credit journal), so that the FX markup stands beside the credit.
SELECT p.created_at, p.journal_id, j.kind,
  CASE
    WHEN j.kind LIKE 'refund%' THEN 'refund'
    WHEN j.kind LIKE 'disbursement%' THEN 'disbursement'
    WHEN j.collection_id IS NOT NULL THEN 'collection'
  END AS reference_type,
  COALESCE(r.gateway_reference, d.gateway_reference, to_jsonb(j) ->> 'reference', c.gateway_reference) AS reference,
  c.gateway_reference AS collection_reference,
  CASE
    WHEN j.kind LIKE 'refund%' THEN r.merchant_reference
    WHEN j.kind LIKE 'disbursement%' THEN d.merchant_reference
    ELSE c.merchant_reference
  END AS merchant_reference,
  c.request_amount_minor, c.request_currency, c.fx_rate, c.fx_reference_rate, c.fx_markup, c.fx_source, c.fx_as_of,
  COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind = 'available'), 0)::bigint AS available_minor,
  COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind = 'pending'), 0)::bigint AS pending_minor,
  COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind = 'reserved'), 0)::bigint AS reserved_minor,
  COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind NOT IN ('available', 'pending', 'reserved')), 0)::bigint AS other_minor,
  SUM(p.amount_minor)::bigint AS net_minor,
  (SELECT COALESCE(SUM(f.amount_minor), 0) FROM postings f JOIN ledger_accounts fa ON fa.id = f.account_id
   WHERE f.journal_id = p.journal_id AND fa.kind = 'fee_revenue')::bigint AS fee_minor,
  json_build_array(p.created_at, p.journal_id)::text AS page_key
FROM postings p
JOIN ledger_accounts a ON a.id = p.account_id AND a.wallet_id = ${wallet_id}
JOIN journals j ON j.id = p.journal_id
LEFT JOIN collections c ON c.id = j.collection_id
LEFT JOIN refunds r ON r.id = j.refund_id
LEFT JOIN disbursements d ON d.id = j.disbursement_id
WHERE p.created_at >= ${from} AND p.created_at < ${to}
  AND (p.created_at, p.journal_id) > (${after}::timestamptz, ${after_journal}::bigint)
GROUP BY p.created_at, p.journal_id, j.id, c.id, r.gateway_reference, r.merchant_reference, d.gateway_reference, d.merchant_reference
ORDER BY p.created_at, p.journal_id
LIMIT ${limit}
