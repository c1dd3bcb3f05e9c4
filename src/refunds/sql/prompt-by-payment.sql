-- A processor's signed webhook about refunds of one payment (Paystack's refund.* events name the
-- transaction, not always the refund): every refund in flight of that payment, or the one with the
-- processor's id, is asked about now. A prompt only, never proof.
UPDATE refunds r SET next_check_at = ${now}
WHERE r.service_type = ${serviceType} AND r.send_state IN ('sent', 'unknown')
  AND ((${vendorReference}::text IS NOT NULL AND r.vendor_reference = ${vendorReference})
    OR r.collection_id IN (SELECT p.collection_id FROM processor_requests p WHERE p.reference = ${originalReference} AND p.service_type = ${serviceType}))
RETURNING r.id
