-- Expiry looks up a collection's unprocessed provider reports (a report received before the deadline
-- wins over expiry): without this it scans every unprocessed report per expiring collection.
CREATE INDEX provider_events_unprocessed_collection ON provider_events (collection_id, due_at, id) WHERE processed_at IS NULL;
