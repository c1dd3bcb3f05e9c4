-- A payment link's end told to its merchant (docs/contract/payment-links.md, "Webhooks"): once, by
-- `payment_link.exhausted` when its completed payments reach completed_limit, or by `payment_link.expired`
-- when the sweep finds it past expires_at, whichever comes first. completions counts the link's collections
-- that moved to COMPLETED, kept by the move that completes each (collections/sql/move.sql, under the link's
-- row lock, so completions at once each see the others'): the move that brings it to the limit writes the
-- exhausted notification. ended_at and end_event: when and by which event the link's end was told.
ALTER TABLE payment_links ADD COLUMN completions INTEGER NOT NULL DEFAULT 0 CHECK (completions >= 0);
ALTER TABLE payment_links ADD COLUMN ended_at TIMESTAMPTZ;
ALTER TABLE payment_links ADD COLUMN end_event TEXT CHECK (end_event IN ('payment_link.exhausted', 'payment_link.expired'));
ALTER TABLE payment_links ADD CHECK ((ended_at IS NULL) = (end_event IS NULL));
UPDATE payment_links l SET completions = (
  SELECT count(*) FROM payment_link_attempts a JOIN collections c ON c.id = a.collection_id
  WHERE a.link_id = l.id AND c.status = 'COMPLETED'
);
-- links that reached their limit before this: their end is not told (nothing was promised then)
UPDATE payment_links SET ended_at = updated_at, end_event = 'payment_link.exhausted' WHERE completions >= completed_limit;
CREATE INDEX payment_links_expiry_due ON payment_links (expires_at) WHERE expires_at IS NOT NULL AND ended_at IS NULL;

-- A notification may be about a payment link (its own sequence), instead of a collection or a disbursement.
ALTER TABLE notifications ADD COLUMN payment_link_id BIGINT REFERENCES payment_links (id);
ALTER TABLE notifications DROP CONSTRAINT notifications_one_subject;
ALTER TABLE notifications ADD CONSTRAINT notifications_one_subject
  CHECK (num_nonnulls(collection_id, disbursement_id, payment_link_id) = 1 AND (refund_id IS NULL OR collection_id IS NOT NULL));
CREATE INDEX notifications_payment_link ON notifications (payment_link_id) WHERE payment_link_id IS NOT NULL;
