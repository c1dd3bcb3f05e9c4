-- Claims due provider reports for the report worker's transaction (one constant text, prepared on a real
-- server): the oldest due first, locked with SKIP LOCKED so batches and processes share the work.
SELECT id, collection_id, outcome, message
FROM provider_events
WHERE processed_at IS NULL AND due_at <= ${now}::timestamptz
ORDER BY due_at, id
LIMIT ${limit}::int
FOR UPDATE SKIP LOCKED
