-- A processor's signed webhook about refunds of one payment (Paystack's refund.* events name the
-- transaction, not always the refund): every refund in flight of that payment, or the one with the
-- processor's id, is asked about now. The payment is named by the processor's reference of it (Paystack's
-- transaction reference is the request's vendor_reference) or by ours. A prompt only, never proof.
UPDATE refunds r SET next_check_at = ${now}
WHERE r.service_type = ${serviceType} AND r.send_state IN ('sent', 'unknown')
  AND ((${vendorReference}::text IS NOT NULL AND r.vendor_reference = ${vendorReference})
    OR EXISTS (SELECT 1 FROM processor_requests p WHERE p.collection_id = r.collection_id AND p.service_type = ${serviceType}
      AND ${originalReference}::text IN (p.reference, p.vendor_reference)))
RETURNING r.id
