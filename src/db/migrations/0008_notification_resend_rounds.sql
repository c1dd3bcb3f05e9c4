-- A re-send (POST /v1/collections/{ref}/notify) restarts the retry schedule without renumbering the
-- attempts already logged: the delay before the next attempt is schedule[attempts - schedule_start].
ALTER TABLE notifications ADD COLUMN schedule_start INTEGER NOT NULL DEFAULT 0 CHECK (schedule_start >= 0);

-- The operator's failing-webhook list groups undelivered notifications by API token.
CREATE INDEX notifications_undelivered_token ON notifications (api_token_id) WHERE delivered_at IS NULL;
