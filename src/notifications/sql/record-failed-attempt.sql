-- A failed webhook attempt, second step: logged under the number record-failed-count.sql took.
INSERT INTO notification_attempts (notification_id, attempt, at, http_status, error, duration_ms, response_body)
VALUES (${id}, ${attempt}, ${at}, ${httpStatus}, ${error}, ${durationMs}, ${responseBody})
