-- Exact collection counts without reading every collection, for the X-PH-Total of GET /v1/collections
-- and the operator's list. A row counts the collections of one business created on one UTC day with one
-- status, method and request currency; triggers keep the rows in step with every insert, status change
-- and delete of a collection, in the same transaction. Like account_balances, each key has up to 16
-- rows ("slots", one per writing session), so concurrent request-to-pays of one business do not wait for
-- each other's commits; a worker folds the slots of past days into slot 0 so the rows to add up stay
-- about one per key and day. A count is the sum of the whole days' rows plus the collections themselves
-- in the partial days at the ends of a from/to range (src/collections/counts.ts).
CREATE TABLE collection_counts (
  business_id INTEGER NOT NULL,
  day DATE NOT NULL,
  status TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  request_currency CHAR(3) NOT NULL,
  slot SMALLINT NOT NULL CHECK (slot BETWEEN 0 AND 15),
  n BIGINT NOT NULL,
  PRIMARY KEY (business_id, day, status, payment_method, request_currency, slot)
);

INSERT INTO collection_counts (business_id, day, status, payment_method, request_currency, slot, n)
SELECT business_id, (created_at AT TIME ZONE 'UTC')::date, status, payment_method, request_currency, 0, count(*)
FROM collections GROUP BY 1, 2, 3, 4, 5;

-- plpgsql rather than sql: its statement's plan is kept for the session instead of made per call.
CREATE FUNCTION collection_counts_add(c collections, delta INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO collection_counts AS k (business_id, day, status, payment_method, request_currency, slot, n)
  VALUES (c.business_id, (c.created_at AT TIME ZONE 'UTC')::date, c.status, c.payment_method, c.request_currency, pg_backend_pid() % 16, delta)
  ON CONFLICT (business_id, day, status, payment_method, request_currency, slot) DO UPDATE SET n = k.n + EXCLUDED.n;
END
$$;

CREATE FUNCTION collection_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM collection_counts_add(OLD, -1); END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM collection_counts_add(NEW, 1); END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER collections_counted AFTER INSERT OR DELETE ON collections
  FOR EACH ROW EXECUTE FUNCTION collection_counts_follow();
-- Only a change of a counted column moves a count: the WHEN test costs no function call otherwise.
CREATE TRIGGER collections_counted_update AFTER UPDATE ON collections
  FOR EACH ROW WHEN ((OLD.business_id, OLD.created_at, OLD.status, OLD.payment_method, OLD.request_currency)
    IS DISTINCT FROM (NEW.business_id, NEW.created_at, NEW.status, NEW.payment_method, NEW.request_currency))
  EXECUTE FUNCTION collection_counts_follow();
CREATE FUNCTION collection_counts_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE collection_counts;
  RETURN NULL;
END
$$;
CREATE TRIGGER collections_truncate_counts AFTER TRUNCATE ON collections
  FOR EACH STATEMENT EXECUTE FUNCTION collection_counts_empty();

-- A business's collections of one status, newest first: the status-filtered page and its edge-day count.
CREATE INDEX collections_business_status_newest ON collections (business_id, status, created_at DESC, id DESC);
