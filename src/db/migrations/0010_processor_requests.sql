-- Live processors: MID credentials, the queue of requests to processors, late completions.

-- A MID's processor credentials as one JSON object sealed with MASTER_KEY; their names in clear, so
-- the operator can see which are set without anything being opened.
ALTER TABLE mids ADD COLUMN credentials_enc TEXT;
ALTER TABLE mids ADD COLUMN credential_names TEXT[] NOT NULL DEFAULT '{}';

-- Set when a processor confirmed the payment of a collection after it had EXPIRED (EXPIRED -> COMPLETED).
ALTER TABLE collections ADD COLUMN late_completed_at TIMESTAMPTZ;

-- One request to a real processor per collection, written in the same statement as the collection.
-- state: queued (to send at next_send_at) -> sent (the processor has it; queried at next_check_at)
-- or unknown (it may have it: queried to find out); settled once the processor gave a final answer;
-- held when what it confirmed does not match the collection (for the operator, never credited).
CREATE TABLE processor_requests (
  collection_id BIGINT PRIMARY KEY REFERENCES collections (id),
  mid_id INTEGER NOT NULL REFERENCES mids (id),
  service_type TEXT NOT NULL,
  -- our reference at the processor (MTN's X-Reference-Id), the same on every resend
  reference TEXT NOT NULL UNIQUE,
  -- the unguessable part of the callback URL
  callback_token TEXT NOT NULL UNIQUE,
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
  currency CHAR(3) NOT NULL,
  -- the processor's own id of the request, when it gives one (M-Pesa's CheckoutRequestID)
  vendor_reference TEXT,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'unknown', 'settled', 'held')),
  send_attempts INTEGER NOT NULL DEFAULT 0,
  next_send_at TIMESTAMPTZ,
  checks INTEGER NOT NULL DEFAULT 0,
  next_check_at TIMESTAMPTZ,
  -- what a callback said was paid, when the status query does not say (compared before any credit)
  reported_amount_minor BIGINT,
  reported_currency CHAR(3),
  last_error TEXT,
  held_reason TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX processor_requests_to_send ON processor_requests (next_send_at) WHERE next_send_at IS NOT NULL;
CREATE INDEX processor_requests_to_check ON processor_requests (next_check_at) WHERE next_check_at IS NOT NULL;
