-- Built data for `npm run bench -- --scale` and the list tests: ${count} collections of business
-- ${business_id}, one every ${step} going back from ${until}, references prefixed ${tag}. A fixed mix:
-- every 10th is CARD (the rest mobile money), every 50th FAILED, every 7th PENDING (expiring a day after
-- ${until}, so no worker touches it), the rest COMPLETED. No ledger rows: they are seeded apart.
INSERT INTO collections (business_id, gateway_reference, merchant_reference, request_hash, payment_method, status, message,
  request_amount_minor, request_currency, account_amount_minor, account_currency, fee_minor, total_credit_minor,
  customer_charged, narration, expires_at, created_at, updated_at)
SELECT ${business_id}, 'gw_' || ${tag} || '_' || g, ${tag} || '_' || g, 'seeded',
  CASE WHEN g % 10 = 0 THEN 'CARD' ELSE 'MOBILE_MONEY' END,
  CASE WHEN g % 50 = 0 THEN 'FAILED' WHEN g % 7 = 0 THEN 'PENDING' ELSE 'COMPLETED' END,
  'Seeded', 1000 + g % 1000, 'UGX', 1000 + g % 1000, 'UGX', 0, 1000 + g % 1000, false, 'seeded order',
  ${until}::timestamptz + interval '1 day', ${until}::timestamptz - g * ${step}::interval, ${until}::timestamptz - g * ${step}::interval
FROM generate_series(1, ${count}) AS g
