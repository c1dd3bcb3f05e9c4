-- Deployment secrets kept in the database, sealed with MASTER_KEY and re-sealed when it rotates. The
-- card fingerprint key lives here so that fingerprints (first-seen dates) survive a new MASTER_KEY.
CREATE TABLE sealed_settings (
  name TEXT PRIMARY KEY,
  value_enc TEXT NOT NULL
);
