-- RATE_LIMIT_RPS shared by every API process: each second's budget of an API token is handed out in
-- shares; `granted` never passes the limit, `last_grant` is what the latest lease statement got.
CREATE TABLE rate_leases (
  api_token_id INTEGER NOT NULL,
  second BIGINT NOT NULL,
  granted INTEGER NOT NULL,
  last_grant INTEGER NOT NULL,
  PRIMARY KEY (api_token_id, second)
);
