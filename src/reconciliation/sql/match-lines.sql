-- Matching of a statement's lines (docs/reconciliation.md, "Matching"): each line finds our record by the
-- processor's reference on the MID (M-Pesa's receipt, else our reference at the processor: MTN's
-- X-Reference-Id; else the reference the processor knows the payment by: Paystack's transaction reference,
-- our vendor_reference), then is compared by currency and amount with what we asked the
-- processor for. A payment of a collection that is not COMPLETED (or REVERSED), or of none, is money we have
-- no record of (ours_missing); a reversal of a payment we hold is reversed_externally. One item per line:
-- a line matched before is not decided again.
WITH lines AS (
  SELECT l.* FROM reconciliation_lines l WHERE l.statement_id = ${statementId}
), found AS (
  SELECT l.id AS line_id, l.mid_id, l.kind, l.reference, l.amount_minor, l.currency, l.occurred_at, ours.*
  FROM lines l
  LEFT JOIN LATERAL (
    SELECT c.id AS collection_id, c.business_id, c.status, pr.amount_minor AS ours_minor, pr.currency AS ours_currency
    FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id
    WHERE pr.mid_id = l.mid_id AND pr.receipt = COALESCE(l.original_reference, l.reference)
    UNION ALL
    SELECT c.id, c.business_id, c.status, pr.amount_minor, pr.currency
    FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id
    WHERE pr.reference = COALESCE(l.original_reference, l.reference) AND pr.mid_id = l.mid_id
    UNION ALL
    SELECT c.id, c.business_id, c.status, pr.amount_minor, pr.currency
    FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id
    WHERE pr.mid_id = l.mid_id AND pr.vendor_reference = COALESCE(l.original_reference, l.reference)
    LIMIT 1
  ) ours ON true
)
INSERT INTO reconciliation_items (mid_id, business_id, day, state, line_id, collection_id, reference, ours_minor, ours_currency, theirs_minor, theirs_currency, created_at)
SELECT f.mid_id, COALESCE(f.business_id, m.business_id), (f.occurred_at AT TIME ZONE 'UTC')::date,
  CASE
    WHEN f.collection_id IS NULL OR f.status NOT IN ('COMPLETED', 'REVERSED') THEN 'ours_missing'
    WHEN f.kind = 'reversal' THEN 'reversed_externally'
    WHEN f.currency <> f.ours_currency THEN 'currency_mismatch'
    WHEN f.amount_minor > f.ours_minor THEN 'amount_over'
    WHEN f.amount_minor < f.ours_minor THEN 'amount_under'
    ELSE 'matched'
  END,
  f.line_id, f.collection_id, f.reference,
  CASE WHEN f.status IN ('COMPLETED', 'REVERSED') THEN f.ours_minor END,
  CASE WHEN f.status IN ('COMPLETED', 'REVERSED') THEN f.ours_currency END,
  f.amount_minor, f.currency, ${now}
FROM found f JOIN mids m ON m.id = f.mid_id
ORDER BY f.line_id
ON CONFLICT (line_id) DO NOTHING
