-- Replacing an authenticator (issue 17): the new secret waits here, sealed with MASTER_KEY, until a code
-- from the new app confirms it; the secret in use keeps working meanwhile.
ALTER TABLE users ADD COLUMN totp_pending_secret_enc TEXT;
