-- Hosted checkouts (Paystack, BTCPay Server): where payment_url sends the customer of a collection whose
-- MID's processor has its own payment pages. Made when the customer first opens payment_url, reused after.
CREATE TABLE checkouts (
  collection_id BIGINT PRIMARY KEY REFERENCES collections (id),
  -- how many times a checkout was started at the processor (a later attempt only after an answer was lost)
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- how the processor knows this checkout (Paystack reference, BTCPay invoice id)
  vendor_reference TEXT,
  -- the processor's checkout or 3-D Secure page; null until the processor gave one
  url TEXT,
  -- one opening at a time talks to the processor: a lease, never a lock held across a network call
  claimed_until TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
