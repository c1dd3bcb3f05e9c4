-- The sandbox's statements (docs/reconciliation.md, "The sandbox's statements"): its simulated processor
-- reports each day's completed payments, and a reversal a developer asks for (a payment taken back outside
-- the API, as a mobile-money operator does after a complaint) as a notice of its own.
ALTER TABLE reconciliation_statements DROP CONSTRAINT reconciliation_statements_source_check;
ALTER TABLE reconciliation_statements ADD CONSTRAINT reconciliation_statements_source_check
  CHECK (source IN ('mpesa_statement', 'mtn_partner_report', 'paystack_settlement', 'btcpay_invoices', 'sandbox_statement'));

-- A sandbox payment reversed at the simulated processor, once; written only by src/sandbox/statements.ts.
CREATE TABLE sandbox_reversals (
  collection_id BIGINT PRIMARY KEY REFERENCES collections (id),
  reversed_at TIMESTAMPTZ NOT NULL
);
