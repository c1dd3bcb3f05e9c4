-- The W3C traceparent of the request or job whose state change wrote the notification (NULL when tracing
-- is off), so that its webhook delivery, made later by a worker, continues the same trace.
ALTER TABLE notifications ADD COLUMN trace_parent TEXT;
