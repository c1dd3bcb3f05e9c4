-- A refund found by the unguessable token of its callback URL, with what judging the processor's answer
-- about the refunded payment needs (the columns of a claim): the collection as it was sent, the receipt
-- its callback gave, the MID's sealed credentials. Nothing when no refund of this service type has it.
SELECT r.*, c.gateway_reference AS collection_gateway_reference, c.request_amount_minor AS collection_amount_minor,
  c.account_number, p.reference AS original_reference, p.vendor_reference AS original_vendor_reference,
  p.receipt AS original_receipt, m.credentials_enc
FROM refunds r
JOIN collections c ON c.id = r.collection_id
LEFT JOIN processor_requests p ON p.collection_id = c.id
LEFT JOIN mids m ON m.id = c.mid_id
WHERE r.callback_token = ${callbackToken} AND r.service_type = ${serviceType}
