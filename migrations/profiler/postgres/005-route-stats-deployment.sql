-- The route statistics by deployment (PROFILER_DEPLOYMENT), as on SQLite (sqlite/004): one
-- deployment, or two side by side, can be read from the store they share. The rows count requests,
-- not stored profiles: pruning profiles leaves them, and PROFILER_STATS_MAX_AGE bounds them.
-- Rows from before this migration cannot be split by deployment: they get the store's deployment
-- when it has known exactly one, else '' (counted when every deployment is read, in no single one).
-- An instance of the previous version cannot add to the rows any more (its upsert names the old
-- key): the instances sharing a store are upgraded together.
ALTER TABLE profile_route_stats ADD COLUMN deployment text NOT NULL DEFAULT '';
UPDATE profile_route_stats SET deployment = (SELECT name FROM profile_deployments)
  WHERE (SELECT count(*) FROM profile_deployments) = 1;
ALTER TABLE profile_route_stats ALTER COLUMN deployment DROP DEFAULT;
ALTER TABLE profile_route_stats DROP CONSTRAINT profile_route_stats_pkey,
  ADD PRIMARY KEY (span_ms, start_ms, deployment, method, route, status);
