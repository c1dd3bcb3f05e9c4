-- A batch of a statement's lines (intake.ts). A line another statement of the MID gave already (the same
-- processor reference: statements overlap) is kept once, so it is matched once.
INSERT INTO reconciliation_lines (statement_id, mid_id, reference, kind, original_reference, amount_minor, currency, occurred_at)
SELECT ${statementId}, ${midId}, v.reference, v.kind, v.original_reference, v.amount_minor, v.currency, v.occurred_at
FROM unnest(${references}::text[], ${kinds}::text[], ${originals}::text[], ${amounts}::bigint[], ${currencies}::text[], ${times}::timestamptz[])
  AS v(reference, kind, original_reference, amount_minor, currency, occurred_at)
ON CONFLICT (mid_id, reference) DO NOTHING
