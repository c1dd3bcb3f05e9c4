-- Payment links (docs/contract/payment-links.md): a merchant shares a URL and a customer pays it on our hosted
-- page. A link is deactivated, never deleted. link_id is the public, unguessable id (in the URL). Every
-- customer's attempt is an ordinary collection, recorded in payment_link_attempts: a row is written (with no
-- collection yet) while the link's row is locked, which reserves a slot of completed_limit, and is given its
-- collection once request-to-pay wrote it; a failed, cancelled or expired collection frees its slot. Both
-- tables' one writer is src/payment-links/.
CREATE TABLE payment_links (
  id BIGSERIAL PRIMARY KEY,
  link_id TEXT NOT NULL UNIQUE,
  business_id INTEGER NOT NULL REFERENCES businesses (id),
  -- the API token that made the link: its collections are made (and notified) under it
  api_token_id INTEGER REFERENCES api_tokens (id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  description TEXT,
  currency CHAR(3) NOT NULL,
  amount_minor BIGINT CHECK (amount_minor > 0),
  min_amount_minor BIGINT CHECK (min_amount_minor > 0),
  max_amount_minor BIGINT,
  payment_methods TEXT[] NOT NULL CHECK (cardinality(payment_methods) > 0),
  expires_at TIMESTAMPTZ,
  completed_limit INTEGER CHECK (completed_limit > 0),
  custom_fields JSONB NOT NULL,
  redirect_url TEXT,
  confirmation_message TEXT,
  state TEXT NOT NULL CHECK (state IN ('active', 'deactivated')),
  deactivation_message TEXT,
  deactivated_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  -- a fixed amount, or the customer's between a minimum and a maximum: one kind, never both
  CHECK ((amount_minor IS NOT NULL) <> (min_amount_minor IS NOT NULL AND max_amount_minor IS NOT NULL)),
  CHECK ((min_amount_minor IS NULL) = (max_amount_minor IS NULL)),
  CHECK (max_amount_minor >= min_amount_minor),
  CHECK (redirect_url IS NULL OR confirmation_message IS NULL)
);
CREATE INDEX payment_links_business_newest ON payment_links (business_id, created_at DESC, id DESC);
CREATE INDEX payment_links_newest ON payment_links (created_at DESC, id DESC);

CREATE TABLE payment_link_attempts (
  id BIGSERIAL PRIMARY KEY,
  link_id BIGINT NOT NULL REFERENCES payment_links (id),
  collection_id BIGINT UNIQUE REFERENCES collections (id),
  -- what the customer filled in for the link's custom fields, by label
  custom_values JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX payment_link_attempts_link ON payment_link_attempts (link_id);

-- A link with its counts: attempts that became collections, those completed and what they collected.
CREATE VIEW payment_links_counted AS
SELECT l.*,
  coalesce(n.attempts, 0)::int AS attempts_count,
  coalesce(n.completed, 0)::int AS completed_count,
  coalesce(n.collected_minor, 0)::bigint AS collected_minor
FROM payment_links l
LEFT JOIN LATERAL (
  SELECT count(c.id) AS attempts,
    count(*) FILTER (WHERE c.status = 'COMPLETED') AS completed,
    sum(c.request_amount_minor) FILTER (WHERE c.status = 'COMPLETED') AS collected_minor
  FROM payment_link_attempts a JOIN collections c ON c.id = a.collection_id
  WHERE a.link_id = l.id
) n ON true;
