-- Reconciliation finds a settled Paystack payment by the reference Paystack knows it by: our processor
-- request's vendor_reference (the gateway_reference, or its numbered retry), per MID.
CREATE INDEX processor_requests_mid_vendor_reference ON processor_requests (mid_id, vendor_reference) WHERE vendor_reference IS NOT NULL;
