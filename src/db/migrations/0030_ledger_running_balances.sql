-- Running balances, so that reading a balance does not grow with the ledger's history. Each ledger
-- account has up to 16 balance rows ("slots"), and a balance is the sum of its account's slots. Every
-- insert of postings adds its amounts to the slot of the database session that wrote them, in the same
-- statement (a trigger), so balance = sum of postings holds in every snapshot and every path that
-- writes postings keeps it. Slots are per session so that the many sessions completing collections
-- into one hot wallet (and into the service's clearing and revenue accounts) update different rows
-- and do not wait for each other's commits. `npm run ledger:check` recomputes them from postings.
CREATE TABLE account_balances (
  account_id INTEGER NOT NULL REFERENCES ledger_accounts (id),
  slot SMALLINT NOT NULL CHECK (slot BETWEEN 0 AND 15),
  balance_minor BIGINT NOT NULL,
  PRIMARY KEY (account_id, slot)
);

INSERT INTO account_balances (account_id, slot, balance_minor)
SELECT account_id, 0, SUM(amount_minor) FROM postings GROUP BY account_id;

-- One upsert per statement, whatever the number of postings; accounts in id order, so two sessions
-- that share a slot lock its rows in the same order.
CREATE FUNCTION account_balances_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_balances AS b (account_id, slot, balance_minor)
  SELECT account_id, pg_backend_pid() % 16, SUM(amount_minor) FROM added_postings GROUP BY account_id ORDER BY account_id
  ON CONFLICT (account_id, slot) DO UPDATE SET balance_minor = b.balance_minor + EXCLUDED.balance_minor;
  RETURN NULL;
END
$$;
CREATE TRIGGER postings_add_to_balances AFTER INSERT ON postings
  REFERENCING NEW TABLE AS added_postings FOR EACH STATEMENT EXECUTE FUNCTION account_balances_add();

-- Postings are the ledger's record: they are appended, never changed or removed one by one (which
-- would leave the running balances behind). Emptying the whole ledger empties the balances with it.
CREATE FUNCTION postings_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'postings are append-only: % refused', TG_OP;
END
$$;
CREATE TRIGGER postings_no_update_or_delete BEFORE UPDATE OR DELETE ON postings
  FOR EACH STATEMENT EXECUTE FUNCTION postings_append_only();

CREATE FUNCTION account_balances_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE account_balances;
  RETURN NULL;
END
$$;
CREATE TRIGGER postings_truncate_balances AFTER TRUNCATE ON postings
  FOR EACH STATEMENT EXECUTE FUNCTION account_balances_empty();
