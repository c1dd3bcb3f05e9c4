-- A dispute first seen (by an event or the poll), with the hold its journal takes. The collection is
-- locked by the caller, so a second prompt for the same dispute waits and then finds this row; the
-- unique (mid_id, processor_dispute_id) makes a second row impossible all the same.
INSERT INTO disputes (gateway_reference, business_id, collection_id, mid_id, wallet_id, processor_dispute_id, stage, status,
  processor_status, reason, amount_minor, currency, held_minor, refunded_minor, deadline_at, resolution, opened_at, created_at, updated_at)
VALUES (${gatewayReference}, ${businessId}, ${collectionId}, ${midId}, ${walletId}, ${processorDisputeId}, ${stage}, 'needs_response',
  ${processorStatus}, ${reason}, ${amountMinor}, ${currency}, ${heldMinor}, ${refundedMinor}, ${deadlineAt}, NULL, ${openedAt}, ${now}, ${now})
ON CONFLICT (mid_id, processor_dispute_id) DO NOTHING
RETURNING *
