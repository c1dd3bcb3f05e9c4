-- FX quotes (docs/contract/money.md, "Quotes"): a merchant asks what a payment in one currency would credit
-- its wallet in another, and gets a price held until expires_at: the reference rate, the markup, the applied
-- rate, their source and as_of, the fee and the credit, worked out as a request-to-pay would at that moment.
-- A request-to-pay naming the quote (same business, amount, currencies, payment method) before it expires is
-- converted exactly as quoted. quote_id is the public, unguessable id; a quote is never changed once written,
-- and its one writer is src/merchants/quotes.ts.
CREATE TABLE fx_quotes (
  id BIGSERIAL PRIMARY KEY,
  quote_id TEXT NOT NULL UNIQUE,
  business_id INTEGER NOT NULL REFERENCES businesses (id),
  payment_method TEXT NOT NULL,
  request_amount_minor BIGINT NOT NULL CHECK (request_amount_minor > 0),
  request_currency CHAR(3) NOT NULL,
  account_currency CHAR(3) NOT NULL,
  account_amount_minor BIGINT NOT NULL CHECK (account_amount_minor > 0),
  fx_rate NUMERIC(30, 12) NOT NULL CHECK (fx_rate > 0),
  fx_reference_rate NUMERIC(30, 12) NOT NULL CHECK (fx_reference_rate > 0),
  fx_markup NUMERIC(31, 12) NOT NULL,
  fx_source TEXT NOT NULL,
  fx_as_of TIMESTAMPTZ,
  fee_minor BIGINT NOT NULL CHECK (fee_minor >= 0),
  total_credit_minor BIGINT NOT NULL CHECK (total_credit_minor >= 0),
  customer_charged BOOLEAN NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  CHECK (request_currency <> account_currency),
  CHECK (fx_markup = fx_rate - fx_reference_rate),
  CHECK (expires_at > created_at)
);
