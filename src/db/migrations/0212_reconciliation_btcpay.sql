-- Reconciliation reads a BTCPay store's settled invoices, a UTC day at a time, as statements of their own
-- source (docs/reconciliation.md, "BTCPay's settled invoices").
ALTER TABLE reconciliation_statements DROP CONSTRAINT reconciliation_statements_source_check;
ALTER TABLE reconciliation_statements ADD CONSTRAINT reconciliation_statements_source_check
  CHECK (source IN ('mpesa_statement', 'mtn_partner_report', 'paystack_settlement', 'btcpay_invoices'));
