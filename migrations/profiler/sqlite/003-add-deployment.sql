-- Which deployment recorded each profile (PROFILER_DEPLOYMENT). Rows from before this migration
-- get the name of the deployment that opens the store next (the writer fills the empty ones).
ALTER TABLE profiles ADD COLUMN deployment TEXT NOT NULL DEFAULT '';
CREATE INDEX profiles_deployment ON profiles (deployment);

-- The deployments that ever wrote here (the listing shows a Deployment column when there are several).
CREATE TABLE profile_deployments (
  name TEXT PRIMARY KEY
) WITHOUT ROWID;
