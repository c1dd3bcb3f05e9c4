-- A failed webhook attempt, first step (the webhook worker's transaction): the attempt counted, its number
-- taken atomically here so concurrent recorders never share one, with what decides the next attempt.
UPDATE notifications SET attempts = attempts + 1 WHERE id = ${id} RETURNING attempts, schedule_start, next_attempt_at
