-- One disbursement of any business by its gateway_reference (the access layer confined a merchant user to its own).
SELECT d.* FROM disbursements d WHERE d.gateway_reference = ${gatewayReference}
