-- Outbox of webhook notifications and emails, written in the same transaction as the state change.
CREATE TABLE notifications (
  id BIGSERIAL PRIMARY KEY,
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  api_token_id INTEGER REFERENCES api_tokens (id) ON DELETE SET NULL,
  event_id TEXT NOT NULL UNIQUE,
  sequence INTEGER NOT NULL,
  transaction_status TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ,
  delivered_at TIMESTAMPTZ,
  gave_up_at TIMESTAMPTZ,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE delivered_at IS NULL AND gave_up_at IS NULL;
CREATE INDEX notifications_collection ON notifications (collection_id, sequence);

CREATE TABLE notification_attempts (
  id BIGSERIAL PRIMARY KEY,
  notification_id BIGINT NOT NULL REFERENCES notifications (id),
  attempt INTEGER NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  http_status INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  response_body TEXT
);
CREATE INDEX notification_attempts_notification ON notification_attempts (notification_id, attempt);

CREATE TABLE emails (
  id BIGSERIAL PRIMARY KEY,
  collection_id BIGINT REFERENCES collections (id),
  kind TEXT NOT NULL,
  recipient TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  sent_at TIMESTAMPTZ,
  gave_up_at TIMESTAMPTZ,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX emails_due ON emails (next_attempt_at) WHERE sent_at IS NULL AND gave_up_at IS NULL;
