-- The sandbox's card disputes (docs/contract/disputes.md, "In the sandbox"): the simulated issuer keeps
-- nothing but the merchant's acceptances and each business's sandbox clock; whether a designated card's
-- payment is disputed, and how the dispute ends, follows from the card and that clock. Both written only by
-- src/sandbox/disputes.ts; the disputes themselves are recorded by src/disputes/ as any processor's.

-- How far a business's sandbox clock is ahead of the real one (moved forward only, by advanceSandboxClock).
CREATE TABLE sandbox_clocks (
  business_id INTEGER PRIMARY KEY REFERENCES businesses (id),
  ahead_seconds BIGINT NOT NULL CHECK (ahead_seconds >= 0),
  updated_at TIMESTAMPTZ NOT NULL
);

-- The merchant's acceptance of a sandbox dispute, as the simulated issuer received it: once per disputed
-- payment (the dispute's id at the simulated issuer is the payment's gateway_reference).
CREATE TABLE sandbox_dispute_answers (
  collection_id BIGINT PRIMARY KEY REFERENCES collections (id),
  accepted_minor BIGINT NOT NULL CHECK (accepted_minor > 0),
  message TEXT NOT NULL,
  answered_at TIMESTAMPTZ NOT NULL
);
