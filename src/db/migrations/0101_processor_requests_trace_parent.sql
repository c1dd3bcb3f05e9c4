-- The W3C traceparent of the request that queued a processor request (NULL when tracing is off), so that the
-- worker's send and status queries, made later, continue the same trace.
ALTER TABLE processor_requests ADD COLUMN trace_parent TEXT;
