-- An email whose last attempt could not reach the SMTP server at all (no SMTP reply), as opposed to one the
-- server refused: such emails are sent again as soon as the server is reachable, not after their backoff.
ALTER TABLE emails ADD COLUMN smtp_unreachable BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX emails_waiting_for_smtp ON emails (id) WHERE smtp_unreachable AND sent_at IS NULL AND gave_up_at IS NULL;
