-- A dispute's new word from the processor: only an open dispute moves (a closed one is final: a repeat
-- or a late event changes nothing); closing it sets closed_at and what was debited, once.
UPDATE disputes SET status = ${status}, stage = ${stage}, processor_status = ${processorStatus}, reason = COALESCE(${reason}, reason),
  resolution = ${resolution}, debited_minor = ${debitedMinor}, updated_at = ${now},
  closed_at = CASE WHEN ${status} IN ('won', 'lost', 'accepted') THEN ${now}::timestamptz END
WHERE id = ${id} AND closed_at IS NULL
  AND (status, stage, processor_status, resolution) IS DISTINCT FROM (${status}, ${stage}, ${processorStatus}, ${resolution})
RETURNING *
