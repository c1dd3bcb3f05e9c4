-- A business's disbursements waiting for an owner's approval, counted per who asked and who holds the
-- secret of the token that asked (what the four-eyes rule looks at); `open`: those still within their
-- deadline (the others are cancelled by the timeout at its next run, and can no longer be approved).
SELECT requested_by_user_id, token_holder_user_id, count(*)::int AS n,
  (count(*) FILTER (WHERE approval_expires_at IS NULL OR approval_expires_at > ${now}))::int AS open
FROM disbursements
WHERE business_id = ${businessId} AND status = 'PENDING_APPROVAL'
GROUP BY requested_by_user_id, token_holder_user_id
