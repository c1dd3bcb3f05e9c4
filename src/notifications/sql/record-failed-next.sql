-- A failed webhook attempt, last step: its error kept. When the worker's claim still holds (${ours}), the
-- claim is freed and the next attempt set for ${nextAttemptAt}, or, with none left (NULL), the notification
-- given up at ${now}. A re-send or another process that took the notification over meanwhile owns the
-- schedule: then only the error is kept, and not even that once the notification is delivered (a late
-- failure of a notification another attempt delivered leaves it without an error).
UPDATE notifications SET last_error = CASE WHEN delivered_at IS NULL THEN ${error} ELSE last_error END,
  next_attempt_at = CASE WHEN ${ours} THEN ${nextAttemptAt}::timestamptz ELSE next_attempt_at END,
  gave_up_at = CASE WHEN ${ours} AND ${nextAttemptAt}::timestamptz IS NULL THEN ${now}::timestamptz ELSE gave_up_at END,
  claimed_by = CASE WHEN ${ours} THEN NULL ELSE claimed_by END
WHERE id = ${id}
