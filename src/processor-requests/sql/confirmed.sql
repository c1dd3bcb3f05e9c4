-- The processor's own final word on a collection's charge, kept apart from what we did with it (the
-- settlement report compares them); confirmed_at is when it first gave this answer.
UPDATE processor_requests SET confirmed_outcome = ${outcome},
  confirmed_at = CASE WHEN confirmed_outcome IS DISTINCT FROM ${outcome} THEN ${now} ELSE confirmed_at END
WHERE collection_id = ${id}
