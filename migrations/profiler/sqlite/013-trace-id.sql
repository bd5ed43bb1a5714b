-- The W3C trace id of the trace a profile belongs to (issue 39: its OpenTelemetry span, or the
-- traceparent header it arrived with), for the search's trace_id filter. NULL for a request that
-- carried no trace and for every profile stored before this migration; the partial index holds
-- only the profiles that have one, so traffic without traces (a scanner's) adds no index entry.
ALTER TABLE profiles ADD COLUMN trace_id TEXT;
CREATE INDEX profiles_trace_id ON profiles (trace_id) WHERE trace_id IS NOT NULL;
