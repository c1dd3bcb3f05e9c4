-- What a callback about a collection's charge may fill in, read without trust: the processor's id of the
-- request (when none is known), the amount it says was paid (compared before any credit), the receipt of
-- the payment (the last one said before the completion is confirmed, afterwards only when none is known).
UPDATE processor_requests p SET
  vendor_reference = COALESCE(p.vendor_reference, ${vendorReference}),
  reported_amount_minor = COALESCE(${reportedAmountMinor}, p.reported_amount_minor),
  reported_currency = COALESCE(${reportedCurrency}, p.reported_currency),
  receipt = CASE WHEN p.state IN ('queued', 'sending', 'sent', 'unknown') OR p.receipt IS NULL THEN COALESCE(${receipt}, p.receipt) ELSE p.receipt END,
  updated_at = ${now}
WHERE p.collection_id = ${id}
