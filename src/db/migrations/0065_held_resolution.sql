-- An operator's decision on a held payment (the processor confirmed another amount or currency): who
-- decided, when, what and why. The request is then settled; these stay null for every other request.
ALTER TABLE processor_requests
  ADD COLUMN resolved_outcome TEXT CHECK (resolved_outcome IN ('COMPLETED', 'FAILED')),
  ADD COLUMN resolved_by TEXT,
  ADD COLUMN resolved_at TIMESTAMPTZ,
  ADD COLUMN resolution_note TEXT;
