-- Double-entry ledger. Every movement is a journal of postings that sum to zero per currency; a
-- wallet's balance is the sum of its accounts' postings (no balance is updated in place).
CREATE TABLE ledger_accounts (
  id SERIAL PRIMARY KEY,
  business_id INTEGER REFERENCES businesses (id),
  wallet_id INTEGER REFERENCES wallets (id),
  currency CHAR(3) NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('available', 'pending', 'reserved', 'fee_revenue', 'processor_clearing')),
  UNIQUE NULLS NOT DISTINCT (wallet_id, currency, kind)
);

CREATE TABLE journals (
  id BIGSERIAL PRIMARY KEY,
  collection_id BIGINT REFERENCES collections (id),
  kind TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- A collection is credited once, whatever reports arrive twice.
CREATE UNIQUE INDEX journals_one_credit ON journals (collection_id) WHERE kind = 'collection_credit';

CREATE TABLE postings (
  id BIGSERIAL PRIMARY KEY,
  journal_id BIGINT NOT NULL REFERENCES journals (id),
  account_id INTEGER NOT NULL REFERENCES ledger_accounts (id),
  amount_minor BIGINT NOT NULL CHECK (amount_minor <> 0),
  currency CHAR(3) NOT NULL,
  kind TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX postings_account ON postings (account_id, id);
CREATE INDEX postings_journal ON postings (journal_id);

-- Amounts held in pending (card settlement) or reserved (rolling reserve), released once when due.
CREATE TABLE ledger_holds (
  id BIGSERIAL PRIMARY KEY,
  journal_id BIGINT NOT NULL REFERENCES journals (id),
  wallet_id INTEGER NOT NULL REFERENCES wallets (id),
  bucket TEXT NOT NULL CHECK (bucket IN ('pending', 'reserved')),
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
  release_at TIMESTAMPTZ NOT NULL,
  released_journal_id BIGINT REFERENCES journals (id)
);
CREATE INDEX ledger_holds_due ON ledger_holds (release_at) WHERE released_journal_id IS NULL;
