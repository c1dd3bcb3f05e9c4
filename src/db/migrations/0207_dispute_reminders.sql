-- When the merchant was reminded that a dispute's deadline nears (docs/contract/disputes.md): one reminder
-- per dispute, written by src/disputes/ with the e-mail in one transaction, so two workers never send two.
ALTER TABLE disputes ADD COLUMN reminded_at TIMESTAMPTZ;
CREATE INDEX disputes_to_remind ON disputes (deadline_at) WHERE closed_at IS NULL AND reminded_at IS NULL;
