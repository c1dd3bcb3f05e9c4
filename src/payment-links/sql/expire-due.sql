-- The expiry sweep (PaymentLinkService.endExpired): up to ${limit} active links past expires_at whose end was
-- not told yet are ended as `payment_link.expired`, each with its one webhook notification
-- (notifications/sql/link-ended-cte.sql, included as ${@notice}), in one statement. A link being ended by a
-- completion right now is skipped (SKIP LOCKED) and ended as exhausted, or by the next sweep; one whose
-- completions reached its limit already was ended by the completion. A deactivated link is not swept: it
-- stopped taking payments by the merchant's word (reactivated, it is swept again).
WITH link_ended AS (
  UPDATE payment_links l SET ended_at = ${now}, end_event = 'payment_link.expired'
  WHERE l.id IN (
    SELECT d.id FROM payment_links d
    WHERE d.expires_at <= ${now} AND d.ended_at IS NULL AND d.state = 'active'
    ORDER BY d.expires_at, d.id LIMIT ${limit}
    FOR UPDATE SKIP LOCKED
  )
  AND l.ended_at IS NULL AND (l.completed_limit IS NULL OR l.completions < l.completed_limit)
  RETURNING l.id, l.api_token_id, l.link_id, l.title, l.completed_limit, l.completions, l.expires_at, l.ended_at, l.end_event,
    ${firstAttemptAt}::timestamptz AS first_attempt_at, ${traceParent}::text AS trace_parent
),
${@notice}
SELECT count(*)::int AS ended FROM link_ended
