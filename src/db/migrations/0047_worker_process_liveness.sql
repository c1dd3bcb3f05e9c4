-- Every running service process registers itself and beats; a webhook or email claim names its process.
-- When a process dies (SIGKILL, a crash), its claims are freed as soon as its heartbeat goes stale,
-- instead of waiting for the end of their lease (30 s for a webhook, 120 s for an email).
CREATE TABLE worker_processes (
  id TEXT PRIMARY KEY,
  started_at TIMESTAMPTZ NOT NULL,
  heartbeat_at TIMESTAMPTZ NOT NULL
);
ALTER TABLE notifications ADD COLUMN claimed_by TEXT;
ALTER TABLE emails ADD COLUMN claimed_by TEXT;
CREATE INDEX notifications_claimed ON notifications (claimed_by) WHERE claimed_by IS NOT NULL;
CREATE INDEX emails_claimed ON emails (claimed_by) WHERE claimed_by IS NOT NULL;
