-- A refund an operator is deciding on, by its gateway_reference, locked for the decision: a second decision
-- or a processor's late answer waits for this one and then finds it no longer held.
SELECT id, send_state FROM refunds WHERE gateway_reference = ${gatewayReference} FOR UPDATE
