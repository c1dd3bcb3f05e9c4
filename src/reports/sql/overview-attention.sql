-- What waits on an operator: API tokens whose webhook has undelivered notifications with a failed
-- attempt, payments and refunds held for a decision and requests whose outcome is unknown (of one business,
-- or all when ${business_id} is null). The held and unknown requests are found through
-- processor_requests_waiting, the held refunds through refunds_held_newest.
SELECT
  (SELECT count(DISTINCT n.api_token_id) FROM notifications n JOIN api_tokens t ON t.id = n.api_token_id
    WHERE n.delivered_at IS NULL AND (${business_id}::int IS NULL OR t.business_id = ${business_id})
      AND EXISTS (SELECT 1 FROM notification_attempts a WHERE a.notification_id = n.id AND a.error IS NOT NULL))::int AS failing_webhooks,
  (SELECT count(*) FROM processor_requests p JOIN collections c ON c.id = p.collection_id
    WHERE p.state = 'held' AND (${business_id}::int IS NULL OR c.business_id = ${business_id}))::int AS held_payments,
  (SELECT count(*) FROM refunds r
    WHERE r.send_state = 'held' AND (${business_id}::int IS NULL OR r.business_id = ${business_id}))::int AS held_refunds,
  (SELECT count(*) FROM processor_requests p JOIN collections c ON c.id = p.collection_id
    WHERE p.state = 'unknown' AND (${business_id}::int IS NULL OR c.business_id = ${business_id}))::int AS unknown_outcomes
