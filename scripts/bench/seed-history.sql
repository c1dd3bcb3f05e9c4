-- Built history for `npm run bench -- --scale`: for the ${count} collections referenced ${tag}_<n> (made by
-- seed-collections.sql), what each payment leaves behind in the tables that grow with every payment: a
-- delivered notification with its delivery attempt, the two sent emails, and an audit entry per 100,
-- dated evenly over the ${months} months before ${until}, so that most of it is past its retention period.
WITH c AS (
  SELECT id, substr(merchant_reference, length(${tag}) + 2)::int AS g FROM collections
  WHERE business_id = ${business_id} AND left(merchant_reference, length(${tag}) + 1) = ${tag} || '_'
), d AS (
  SELECT id, g, ${until}::timestamptz - (g::float8 / ${count} * ${months} * 30) * interval '1 day' AS at FROM c
), n AS (
  INSERT INTO notifications (collection_id, event_id, sequence, transaction_status, body, attempts, delivered_at, created_at)
  SELECT id, ${tag} || '_' || g, 1, 'COMPLETED', '{"seeded":true}', 1, at, at FROM d
  RETURNING id, created_at
), a AS (
  INSERT INTO notification_attempts (notification_id, attempt, at, http_status, duration_ms, response_body)
  SELECT id, 1, created_at, 200, 12, '{"received":true}' FROM n
), e AS (
  INSERT INTO emails (collection_id, kind, recipient, subject, text_body, attempts, sent_at, next_attempt_at, created_at)
  SELECT d.id, k, 'shop@example.com', 'Payment received', repeat('Seeded email text. ', 60), 1, d.at, d.at, d.at
  FROM d CROSS JOIN (VALUES ('merchant_started'), ('merchant_summary')) AS v (k)
)
INSERT INTO audit_log (at, actor_type, action, business_id, target_type, target_id, before, after)
SELECT at, 'operator_key', 'updateBusiness', ${business_id}, 'business', ${business_id}::text, '{"name":"before"}', '{"name":"after"}'
FROM d WHERE g % 100 = 0
