-- Matching of a statement's lines (docs/reconciliation.md, "Matching"): each line finds our record by the
-- processor's reference on the MID (M-Pesa's receipt, else our reference at the processor: MTN's
-- X-Reference-Id; else the reference the processor knows the payment by: Paystack's transaction reference,
-- our vendor_reference), then is compared by currency and amount with what we asked the
-- processor for. A payment of a collection that is not COMPLETED (or REVERSED), or of none, is money we have
-- no record of (ours_missing); a reversal of a payment we hold is reversed_externally. Money out is matched
-- the same way with our refunds and disbursements: a refund line by our refund's reference, a payout line by
-- our disbursement's, and an M-Pesa reversal of a payment we refunded (the Reversal API's row) is our
-- refund, not the operator's reversal; a refund or payout that is not COMPLETED (or REVERSED), or of none, is
-- ours_missing. One item per line: a line matched before is not decided again.
WITH found AS (
  SELECT l.id AS line_id, l.mid_id, l.kind, l.reference, l.amount_minor, l.currency, l.occurred_at,
    ours.collection_id, out_.refund_id, out_.disbursement_id, COALESCE(out_.business_id, ours.business_id) AS business_id,
    COALESCE(out_.status, ours.status) AS status, COALESCE(out_.ours_minor, ours.ours_minor) AS ours_minor,
    COALESCE(out_.ours_currency, ours.ours_currency) AS ours_currency
  FROM reconciliation_lines l
  LEFT JOIN LATERAL (
    -- one branch per reference (not one OR of both), as for collections: each is one index lookup
    SELECT r.id AS refund_id, NULL::bigint AS disbursement_id, r.business_id, r.status, r.amount_minor AS ours_minor, r.currency AS ours_currency
    FROM refunds r
    WHERE l.kind = 'refund' AND r.reference = l.reference AND r.mid_id = l.mid_id
    UNION ALL
    SELECT r.id, NULL, r.business_id, r.status, r.amount_minor, r.currency
    FROM refunds r
    WHERE l.kind = 'refund' AND r.mid_id = l.mid_id AND r.vendor_reference = l.reference
    UNION ALL
    -- a refund made by reversing the payment (M-Pesa's Reversal API): its row names the refunded payment's
    -- receipt as the operator's own reversal does; a refund of ours of that payment makes it ours. Only
    -- M-Pesa gives a payment a receipt, so no other processor's reversal is found here: theirs name the
    -- payment by our reference or theirs, and a refund of ours is a line of its own (MTN's REFUND row)
    SELECT r.id, NULL, r.business_id, r.status, r.amount_minor, r.currency
    FROM processor_requests pr JOIN refunds r ON r.collection_id = pr.collection_id AND r.mid_id = pr.mid_id
    WHERE l.kind = 'reversal' AND pr.mid_id = l.mid_id AND pr.receipt = l.original_reference
      AND r.status NOT IN ('FAILED', 'CANCELLED')
    UNION ALL
    SELECT NULL, d.id, d.business_id, d.status, d.amount_minor, d.currency
    FROM disbursements d
    WHERE l.kind = 'payout' AND d.reference = l.reference AND d.mid_id = l.mid_id
    UNION ALL
    SELECT NULL, d.id, d.business_id, d.status, d.amount_minor, d.currency
    FROM disbursements d
    WHERE l.kind = 'payout' AND d.mid_id = l.mid_id AND d.vendor_reference = l.reference
    LIMIT 1
  ) out_ ON true
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
    UNION ALL
    -- a sandbox payment: no processor request, the simulated processor knows it by its gateway_reference
    SELECT c.id, c.business_id, c.status, c.request_amount_minor, c.request_currency
    FROM collections c
    WHERE c.gateway_reference = COALESCE(l.original_reference, l.reference) AND c.mid_id = l.mid_id
      AND NOT EXISTS (SELECT FROM processor_requests pr WHERE pr.collection_id = c.id)
    LIMIT 1
  ) ours ON l.kind IN ('payment', 'reversal') AND out_.refund_id IS NULL
  WHERE l.statement_id = ${statementId}
)
INSERT INTO reconciliation_items (mid_id, business_id, day, state, line_id, collection_id, refund_id, disbursement_id, reference, ours_minor, ours_currency, theirs_minor, theirs_currency, created_at)
SELECT f.mid_id, COALESCE(f.business_id, m.business_id), (f.occurred_at AT TIME ZONE 'UTC')::date,
  CASE
    WHEN num_nonnulls(f.collection_id, f.refund_id, f.disbursement_id) = 0 OR f.status NOT IN ('COMPLETED', 'REVERSED') THEN 'ours_missing'
    WHEN f.kind = 'reversal' AND f.refund_id IS NULL THEN 'reversed_externally'
    WHEN f.currency <> f.ours_currency THEN 'currency_mismatch'
    WHEN f.amount_minor > f.ours_minor THEN 'amount_over'
    WHEN f.amount_minor < f.ours_minor THEN 'amount_under'
    ELSE 'matched'
  END,
  f.line_id, f.collection_id, f.refund_id, f.disbursement_id, f.reference,
  CASE WHEN f.status IN ('COMPLETED', 'REVERSED') THEN f.ours_minor END,
  CASE WHEN f.status IN ('COMPLETED', 'REVERSED') THEN f.ours_currency END,
  f.amount_minor, f.currency, ${now}
FROM found f JOIN mids m ON m.id = f.mid_id
ORDER BY f.line_id
ON CONFLICT (line_id) DO NOTHING
