-- A collection's request in flight: the claim of a send marks its processor request 'sending' before the
-- processor is called, and the call's outcome replaces the mark (as 0180 did for refunds and payouts). A
-- claim that still finds 'sending' after its lease (the worker died after its call may have reached the
-- processor, before the outcome was written) never sends it again: it is an unknown outcome, settled by a
-- status query, and sent again under the same reference only when the processor answers that it never
-- received it. M-Pesa's STK push does not promise to refuse a repeated request: a blind resend would put a
-- second payment prompt on the customer's phone, and a customer who approves both pays twice.
ALTER TABLE processor_requests DROP CONSTRAINT processor_requests_state_check;
ALTER TABLE processor_requests ADD CONSTRAINT processor_requests_state_check
  CHECK (state IN ('queued', 'sending', 'sent', 'unknown', 'settled', 'held'));
