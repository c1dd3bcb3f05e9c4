-- A send in flight: the claim of a send marks its request 'sending' before the processor is called, and
-- the call's outcome replaces the mark. A claim that still finds 'sending' (the worker died after its
-- call may have reached the processor, before the outcome was written) never sends it again: it is an
-- unknown outcome, settled by a status query, and sent again under the same reference only when the
-- processor answers that it never received it. A vendor that does not refuse a repeated reference (M-Pesa
-- B2C) would otherwise pay twice.
ALTER TABLE disbursements DROP CONSTRAINT disbursements_send_state_check;
ALTER TABLE disbursements ADD CONSTRAINT disbursements_send_state_check
  CHECK (send_state IN ('held', 'queued', 'sending', 'sent', 'unknown', 'settled'));
ALTER TABLE refunds DROP CONSTRAINT refunds_send_state_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_send_state_check
  CHECK (send_state IN ('queued', 'sending', 'sent', 'unknown', 'settled'));
