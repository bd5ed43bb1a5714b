-- How far the route statistics' minute rows were given up to keep the statistics within their share
-- of PROFILER_MAX_BYTES (issue 37; engine/retention-policy.ts: statisticsCoarsening): every minute
-- row that started before minutes_before_ms is gone (their hours' rows hold the same requests), so
-- a window that would start there with minutes starts at its whole hour instead. One row; 0: none.
CREATE TABLE profile_statistics_coarsened (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  minutes_before_ms INTEGER NOT NULL
);
INSERT INTO profile_statistics_coarsened (id, minutes_before_ms) VALUES (1, 0);
