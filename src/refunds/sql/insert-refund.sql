-- A new refund with its request to the processor, due to be sent at once; nothing when the business
-- used the merchant_reference for a refund already (then the caller answers with that one).
INSERT INTO refunds (business_id, api_token_id, collection_id, wallet_id, gateway_reference, merchant_reference, request_hash,
  amount_minor, currency, account_amount_minor, account_currency, status, pending_reason, reason, message,
  service_type, mid_id, reference, callback_token, send_state, next_send_at, trace_parent, created_at, updated_at)
VALUES (${businessId}, ${apiTokenId}, ${collectionId}, ${walletId}, ${gatewayReference}, ${merchantReference}, ${requestHash},
  ${amountMinor}, ${currency}, ${accountAmountMinor}, ${accountCurrency}, 'PENDING', 'awaiting_processor', ${reason}, ${message},
  ${serviceType}, ${midId}, ${reference}, ${callbackToken}, 'queued', ${now}, ${traceParent}, ${now}, ${now})
ON CONFLICT (business_id, merchant_reference) DO NOTHING
RETURNING *, ${collectionGatewayReference}::text AS collection_gateway_reference
