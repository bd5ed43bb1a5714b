-- Requests the route statistics could not count (issue 37; stats/missing.ts): neither their
-- profile nor a statistics-only count of them could be kept. Per deployment and period of the
-- requests' start (a minute, coarser when many were missing), added up by every writer; the
-- statistics page says how many requests each window lacks. Deleted with the rollups' bound.
CREATE TABLE profile_statistics_missing (
  deployment text NOT NULL,
  span_ms bigint NOT NULL,
  start_ms bigint NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (deployment, span_ms, start_ms)
);
CREATE INDEX profile_statistics_missing_start ON profile_statistics_missing (start_ms);
