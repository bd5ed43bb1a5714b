-- Route statistics, kept by the writer thread in the same transaction as the profiles it writes
-- and prunes (plugins/profiler/stats/rollup.ts): one row per minute and one per hour for each
-- route and method, and for requests no route matched, for each status. The statistics page reads
-- a few thousand of these rows at most, never the profiles. Profiles stored before this migration
-- are not counted.
CREATE TABLE profile_route_stats (
  span_ms    INTEGER NOT NULL,   -- 60000 (a minute) or 3600000 (an hour)
  start_ms   INTEGER NOT NULL,   -- the period's start, epoch milliseconds (UTC)
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
  PRIMARY KEY (span_ms, start_ms, method, route, status)
) WITHOUT ROWID;

-- The listing's `route` filter (the statistics page links to it).
CREATE INDEX profiles_route ON profiles (route);
