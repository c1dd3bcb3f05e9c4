-- What a request-to-pay reads of the configuration (one constant text, prepared on a real server), all at
-- one configuration version: the version; the API token's state with the recipients of its notices; the
-- business's MIDs that collect; and the pricing inputs (PricingInputs in pricing.ts): the wallet that takes the request
-- currency (the one in that currency, else the default wallet: flagged, else the default currency's) with
-- its business's fee bearer, the fee rule of the payment method, and the rate rows among the request
-- currency, the wallet's and ${pivot} (the pivot of cross rates, PIVOT in src/domain/fx.ts), with their source and as_of
-- (null when no conversion). A part not wanted is asked for with a NULL id and
-- reads nothing. Amounts and rates are read as text: JSON numbers would round them.
SELECT (SELECT version FROM config_version) AS version,
  (SELECT json_build_object('id', tok.id, 'business_id', tok.business_id, 'generation', tok.generation,
      'business_verified', biz.verified_at IS NOT NULL,
      'recipients', json_build_object('notification_email', tok.notification_email, 'email_merchant', tok.email_merchant,
        'email_user', tok.email_user, 'business_name', biz.name))
    FROM api_tokens tok JOIN businesses biz ON biz.id = tok.business_id
    WHERE tok.id = ${token_id}::int) AS token,
  (SELECT coalesce(json_agg(json_build_object('id', m.id, 'payment_method', m.payment_method, 'currency', m.currency,
      'allowed_traffic', m.allowed_traffic, 'processing_rank', m.processing_rank,
      'reject_first_time_depositors', m.reject_first_time_depositors, 'active', m.active, 'service_type', m.service_type) ORDER BY m.id), '[]')
    FROM mids m WHERE m.business_id = ${mids_business_id}::int AND m.collects) AS mids,
  (SELECT json_build_object('currency', w.currency, 'fee_bearer', w.fee_bearer, 'fx_markup_percent', w.fx_markup_percent::text,
      'fee', (SELECT json_build_object('percent', f.percent::text, 'fixed_minor', f.fixed_minor::text)
              FROM business_fees f WHERE f.business_id = w.business_id AND f.payment_method = ${payment_method}::text),
      'fx', CASE WHEN w.currency <> ${request_currency}::text THEN (
              SELECT json_agg(json_build_object('base', x.base, 'quote', x.quote, 'rate', x.rate::text, 'source', x.source, 'as_of', x.as_of))
              FROM fx_rates x
              WHERE x.base IN (${request_currency}::text, w.currency, ${pivot}::text) AND x.quote IN (${request_currency}::text, w.currency, ${pivot}::text)) END)
    FROM (SELECT w.business_id, w.currency, b.fee_bearer, b.fx_markup_percent FROM wallets w JOIN businesses b ON b.id = w.business_id
          WHERE w.business_id = ${pricing_business_id}::int AND (w.currency = ${request_currency}::text OR w.is_default OR w.currency = b.default_currency)
          ORDER BY (w.currency = ${request_currency}::text) DESC, w.is_default DESC LIMIT 1) w) AS pricing
