-- The one path by which a refund changes state (docs/contract/refunds.md): only from a state in ${from},
-- taking the next notification sequence when an API token asked for it; its request to the processor
-- is settled or checked as ${sendState} / ${nextCheckAt} say. A refund held for an operator moves only by
-- the operator's decision (${resolvedBy} set, kept with ${resolutionNote}), and is then no longer held.
-- Returns nothing when the refund is no longer in one of those states (a repeat or a late report) or is
-- held and this is not the decision (a processor's late answer). Also reads what the outbox needs.
UPDATE refunds r SET status = ${to}, pending_reason = NULL, failure_reason = ${failureReason}, message = ${message},
  updated_at = ${now}, notification_seq = r.notification_seq + CASE WHEN r.api_token_id IS NULL THEN 0 ELSE 1 END,
  vendor_reference = COALESCE(${vendorReference}, r.vendor_reference), claim_url = COALESCE(${claimUrl}, r.claim_url),
  send_state = ${sendState}, next_send_at = NULL, next_check_at = ${nextCheckAt}, last_error = NULL, held_reason = NULL, claimed_by = NULL,
  resolution_note = ${resolutionNote}, resolved_by = ${resolvedBy}, resolved_at = CASE WHEN ${resolvedBy}::text IS NULL THEN NULL ELSE ${now}::timestamptz END
FROM collections c
WHERE r.id = ${refundId} AND r.status = ANY(${from}::text[]) AND c.id = r.collection_id
  AND (r.send_state <> 'held' OR ${resolvedBy}::text IS NOT NULL)
RETURNING r.*, c.gateway_reference AS collection_gateway_reference, c.account_email,
  (SELECT json_build_object('notification_email', t.notification_email, 'email_merchant', t.email_merchant,
     'email_user', t.email_user, 'business_name', b.name)
   FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = r.api_token_id) AS recipients
