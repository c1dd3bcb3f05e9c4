-- The wallet a disbursement is paid from, locked so that disbursements (and refunds) of one wallet check
-- and take its available balance and its limits one after the other, with the business's disbursement
-- settings. Its own statement: the balance and the day's total are read after the lock is held, in
-- statements that see every disbursement committed before.
SELECT w.id, w.currency, w.disbursement_limit_minor, w.disbursement_daily_limit_minor, w.disbursement_approval_threshold_minor,
  b.disbursements_frozen, b.disbursement_fee_percent::text AS fee_percent, b.disbursement_fee_fixed_minor AS fee_fixed_minor,
  b.disbursement_approval_hours
FROM wallets w JOIN businesses b ON b.id = w.business_id
WHERE w.business_id = ${businessId} AND w.currency = ${currency}
FOR NO KEY UPDATE OF w
