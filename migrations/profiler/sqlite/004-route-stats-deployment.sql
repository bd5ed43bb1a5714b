-- The route statistics by deployment (PROFILER_DEPLOYMENT), so that one deployment, or two side by
-- side, can be read from a store several write to. The rows count requests, not stored profiles:
-- pruning profiles leaves them, and PROFILER_STATS_MAX_AGE bounds them (the retention step).
-- Rows from before this migration cannot be split by deployment (a row adds up requests, and the
-- profiles behind it may be gone): they get the store's deployment when it has known exactly one,
-- else '' (counted in the statistics of every deployment together, in no single one's).
CREATE TABLE profile_route_stats_by_deployment (
  span_ms    INTEGER NOT NULL,   -- 60000 (a minute) or 3600000 (an hour)
  start_ms   INTEGER NOT NULL,   -- the period's start, epoch milliseconds (UTC)
  deployment TEXT    NOT NULL,   -- the deployment that recorded the requests
  method     TEXT    NOT NULL,   -- '' when no route matched
  route      TEXT    NOT NULL,   -- the route pattern; '' when no route matched
  status     INTEGER NOT NULL,   -- the status code when no route matched; 0 for routes
  count      INTEGER NOT NULL,
  status_1xx INTEGER NOT NULL,
  status_2xx INTEGER NOT NULL,
  status_3xx INTEGER NOT NULL,
  status_4xx INTEGER NOT NULL,
  status_5xx INTEGER NOT NULL,
  sum_ms     REAL    NOT NULL,
  max_ms     REAL    NOT NULL,
  -- durations as a fixed log-scale histogram: (uint16 bucket, uint32 count) little-endian pairs
  histogram  BLOB    NOT NULL,
  PRIMARY KEY (span_ms, start_ms, deployment, method, route, status)
) WITHOUT ROWID;

INSERT INTO profile_route_stats_by_deployment
  SELECT span_ms, start_ms,
    CASE WHEN (SELECT count(*) FROM profile_deployments) = 1 THEN (SELECT name FROM profile_deployments) ELSE '' END,
    method, route, status, count, status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram
  FROM profile_route_stats;
DROP TABLE profile_route_stats;
ALTER TABLE profile_route_stats_by_deployment RENAME TO profile_route_stats;
