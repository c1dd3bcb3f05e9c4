-- What every request-to-pay reads and rarely changes (API tokens, businesses, their fees, wallets and MIDs,
-- market rates) is kept in each process's memory (src/merchants/config-cache.ts). Every change to those
-- tables bumps one version row and sends a NOTIFY, in the changing transaction: a process drops its copy on
-- the notice, and a request-to-pay's write is guarded by the version its inputs were read at, so a missed
-- notice cannot serve stale tokens, routing or prices to a write.
CREATE TABLE config_version (
  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  version BIGINT NOT NULL
);
INSERT INTO config_version (version) VALUES (1);

-- BEFORE each statement, so a transaction takes the version row's lock before any row lock of a
-- configuration table: two configuration changes wait for each other there, never in a cycle.
CREATE FUNCTION config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE config_version SET version = version + 1;
  PERFORM pg_notify('paycollect_config', '');
  RETURN NULL;
END $$;

DO $$
DECLARE t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['businesses', 'business_fees', 'wallets', 'mids', 'api_tokens', 'fx_rates'] LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION config_changed()',
      t || '_config_changed', t);
  END LOOP;
END $$;
