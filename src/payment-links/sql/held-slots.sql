-- The slots of a link's completed_limit taken now: its attempts whose collection is under way or completed,
-- and its attempts still being made (no collection yet) since ${since}. A failed, cancelled or expired
-- collection frees its slot; so does an attempt whose making died before it wrote its collection.
SELECT count(*)::int AS held
FROM payment_link_attempts a
LEFT JOIN collections c ON c.id = a.collection_id
WHERE a.link_id = ${linkId}
  AND (c.status IN ('PENDING', 'COMPLETED') OR (a.collection_id IS NULL AND a.created_at > ${since}))
