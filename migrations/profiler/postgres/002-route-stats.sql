-- Route statistics, kept by the writer thread in the same transaction as the profiles it writes
-- and prunes (plugins/profiler/stats/rollup.ts, plugins/profiler/engine/postgres/rollups.ts), as on
-- SQLite: one row per minute and one per hour for each route and method, and for requests no route
-- matched, for each status. Dropping a partition takes its profiles out of these rows in the same
-- transaction. Profiles stored before this migration are not counted.
CREATE TABLE profile_route_stats (
  span_ms    integer          NOT NULL,   -- 60000 (a minute) or 3600000 (an hour)
  start_ms   bigint           NOT NULL,   -- the period's start, epoch milliseconds (UTC)
  method     text             NOT NULL,   -- '' when no route matched
  route      text             NOT NULL,   -- the route pattern; '' when no route matched
  status     smallint         NOT NULL,   -- the status code when no route matched; 0 for routes
  count      bigint           NOT NULL,
  status_1xx bigint           NOT NULL,
  status_2xx bigint           NOT NULL,
  status_3xx bigint           NOT NULL,
  status_4xx bigint           NOT NULL,
  status_5xx bigint           NOT NULL,
  sum_ms     double precision NOT NULL,
  max_ms     double precision NOT NULL,
  -- durations as a fixed log-scale histogram: (uint16 bucket, uint32 count) little-endian pairs
  histogram  bytea            NOT NULL,
  PRIMARY KEY (span_ms, start_ms, method, route, status)
);

-- The listing's `route` filter (the statistics page links to it), newest first.
CREATE INDEX profiles_route_id ON profiles (route, id);
