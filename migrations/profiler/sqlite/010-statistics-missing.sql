-- Requests the route statistics could not count (issue 37; stats/missing.ts): neither their
-- profile nor a statistics-only count of them could be kept. Per deployment and period of the
-- requests' start (a minute, coarser when many were missing), added up by every writer; the
-- statistics page says how many requests each window lacks. Deleted with the rollups' bound.
CREATE TABLE profile_statistics_missing (
  deployment TEXT NOT NULL,
  span_ms INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (deployment, span_ms, start_ms)
) WITHOUT ROWID;
CREATE INDEX profile_statistics_missing_start ON profile_statistics_missing (start_ms);
