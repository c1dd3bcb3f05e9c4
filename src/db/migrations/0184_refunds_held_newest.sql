-- The operator's refunds held for their decision (GET /v1/admin/refunds?held=true, the refunds export with
-- the same filter, the overview's count): newest first, a page at a time after the last (created_at, id),
-- as the list's keyset reads. Partial: only the few held refunds are in it, so neither the list nor the
-- count reads every business's refunds to find them.
CREATE INDEX IF NOT EXISTS refunds_held_newest ON refunds (created_at DESC, id DESC) WHERE send_state = 'held';
