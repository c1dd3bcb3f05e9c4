-- A refund whose callback URL answered, with what judging the processor's answer about the refunded
-- payment needs: the collection as it was sent, the receipt its callback gave, the MID's sealed credentials.
SELECT r.*, c.gateway_reference AS collection_gateway_reference, c.request_amount_minor AS collection_amount_minor,
  c.account_number, p.reference AS original_reference, p.vendor_reference AS original_vendor_reference,
  p.receipt AS original_receipt, m.credentials_enc
FROM refunds r
JOIN collections c ON c.id = r.collection_id
LEFT JOIN processor_requests p ON p.collection_id = c.id
LEFT JOIN mids m ON m.id = c.mid_id
WHERE r.id = ${refundId}
