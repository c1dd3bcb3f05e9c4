-- Reports (docs/reports.md): what the wallet statement and the settlement report read.

-- A wallet statement sums a wallet's postings from a time on and lists those of a period: by account
-- and time, so neither reads the wallet's whole history.
CREATE INDEX postings_account_time ON postings (account_id, created_at, journal_id);

-- What the processor itself said about a payment, apart from what we did with it: the settlement report
-- compares the two. Written when a status query gets a final answer (COMPLETED, FAILED or CANCELLED),
-- before the collection is moved, so a confirmation that could not be applied still shows.
ALTER TABLE processor_requests
  ADD COLUMN confirmed_outcome TEXT CHECK (confirmed_outcome IN ('COMPLETED', 'FAILED', 'CANCELLED')),
  ADD COLUMN confirmed_at TIMESTAMPTZ;

-- Requests settled before this column existed: a held request was held because the processor confirmed
-- payment; a settled request of a COMPLETED collection was completed on the processor's word (the only
-- path to COMPLETED for a collection with a request). Other settled requests stay unknown (null).
UPDATE processor_requests p SET confirmed_outcome = 'COMPLETED', confirmed_at = p.updated_at
FROM collections c
WHERE c.id = p.collection_id AND (p.state = 'held' OR (p.state = 'settled' AND c.status = 'COMPLETED'));
