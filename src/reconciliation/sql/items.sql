-- A page of one MID's items (index.ts, items): of one day (UTC) when given, of one state when given, in
-- id order after the cursor; with what an operator needs beside them (the collection's reference and state,
-- or the refund's or the disbursement's reference; an M-Pesa reversal line that is our refund is its refund).
SELECT i.id, i.mid_id, i.business_id, i.day::text AS day, i.state, i.reference, i.ours_minor, i.ours_currency, i.theirs_minor,
  i.theirs_currency, i.created_at, i.resolution, i.action, i.reason, i.requested_by, i.requested_at, i.approved_by,
  i.resolved_at, c.gateway_reference, c.status AS collection_status,
  CASE WHEN i.refund_id IS NOT NULL AND l.kind = 'reversal' THEN 'refund' ELSE l.kind END AS line_kind,
  CASE WHEN i.collection_id IS NOT NULL THEN 'collection' WHEN i.refund_id IS NOT NULL THEN 'refund' WHEN i.disbursement_id IS NOT NULL THEN 'disbursement' END AS subject,
  COALESCE(c.gateway_reference, r.gateway_reference, d.gateway_reference) AS subject_reference
FROM reconciliation_items i
LEFT JOIN collections c ON c.id = i.collection_id
LEFT JOIN refunds r ON r.id = i.refund_id
LEFT JOIN disbursements d ON d.id = i.disbursement_id
LEFT JOIN reconciliation_lines l ON l.id = i.line_id
WHERE i.mid_id = ${midId} AND (${day}::date IS NULL OR i.day = ${day}::date) AND (${state}::text IS NULL OR i.state = ${state})
  AND i.id > ${after}
ORDER BY i.id
LIMIT ${limit}
