-- A webhook notification may be about a card dispute (docs/contract/disputes.md, "The merchant is told"):
-- it names the dispute and the collection disputed, as a refund's names the refund and its collection, so
-- notifications_one_subject (one of collection, disbursement, payment link) holds as it is; the dispute's
-- notifications number their own sequence (1, 2, ... per dispute), taken under the dispute's row lock by
-- its one writer (src/disputes/).
ALTER TABLE notifications ADD COLUMN dispute_id BIGINT REFERENCES disputes (id);
ALTER TABLE notifications ADD CONSTRAINT notifications_dispute_names_collection
  CHECK (dispute_id IS NULL OR (collection_id IS NOT NULL AND refund_id IS NULL));
CREATE UNIQUE INDEX notifications_dispute_sequence ON notifications (dispute_id, sequence) WHERE dispute_id IS NOT NULL;
