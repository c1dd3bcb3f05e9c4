-- A new disbursement with its request to the processor: due to be sent at once when PENDING, held back
-- (send_state 'held') while PENDING_APPROVAL. Nothing when the business used the merchant_reference for a
-- disbursement already (then the caller answers with that one). ${apiTokenId} is NULL and
-- ${requestedBy} the owner for one asked for in the dashboard. One an API token asked for keeps the token's
-- holder as it is now (who created it or last regenerated its secret): they may not approve it.
INSERT INTO disbursements (business_id, api_token_id, requested_by_user_id, token_holder_user_id, wallet_id, gateway_reference, merchant_reference, request_hash,
  amount_minor, fee_minor, currency, payment_method, account_number, bank_code, account_name, narration,
  status, pending_reason, message, approval_expires_at,
  service_type, mid_id, reference, callback_token, send_state, next_send_at, trace_parent, created_at, updated_at)
VALUES (${businessId}, ${apiTokenId}, ${requestedBy}, (SELECT t.secret_holder_user_id FROM api_tokens t WHERE t.id = ${apiTokenId}::int), ${walletId}, ${gatewayReference}, ${merchantReference}, ${requestHash},
  ${amountMinor}, ${feeMinor}, ${currency}, ${paymentMethod}, ${accountNumber}, ${bankCode}, ${accountName}, ${narration},
  ${status}, ${pendingReason}, ${message}, ${approvalExpiresAt},
  ${serviceType}, ${midId}, ${reference}, ${callbackToken}, ${sendState}, ${nextSendAt}, ${traceParent}, ${now}, ${now})
ON CONFLICT (business_id, merchant_reference) DO NOTHING
RETURNING *
