-- The profile store on PostgreSQL, shared by several deployments.
--
-- `profiles` (one narrow, searchable row per request) and `profile_data` (the panels, read only
-- by the profile page) are partitioned by `id` ranges: id = start_ms * 1024 + n, so a range of
-- ids is a range of time. The writer creates each partition ahead of the rows it holds; retention
-- drops whole partitions (no mass DELETE). There is no unique key on `id`: two instances may give
-- the same id; `token` is what identifies a profile (see profile_tokens).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE profiles (
  id           bigint           NOT NULL,
  token        text             NOT NULL,
  deployment   text             NOT NULL,
  parent_token text,
  type         text             NOT NULL DEFAULT 'request',
  ip           text             NOT NULL,
  method       text             NOT NULL,
  url          text             NOT NULL,
  status_code  smallint         NOT NULL,
  duration_ms  double precision NOT NULL,
  route        text
) PARTITION BY RANGE (id);

-- Newest first is the id index read backwards; each filter's index ends with id, so
-- "WHERE x = $1 ORDER BY id DESC LIMIT n" reads n entries. Substrings go through trigrams.
CREATE INDEX profiles_id ON profiles (id);
CREATE INDEX profiles_token ON profiles (token);
CREATE INDEX profiles_type_id ON profiles (type, id);
CREATE INDEX profiles_deployment_id ON profiles (deployment, id);
CREATE INDEX profiles_method_id ON profiles (method, id);
CREATE INDEX profiles_status_id ON profiles (status_code, id);
CREATE INDEX profiles_ip_id ON profiles (ip, id);
CREATE INDEX profiles_ip_trgm ON profiles USING gin (ip gin_trgm_ops);
CREATE INDEX profiles_url_trgm ON profiles USING gin (url gin_trgm_ops);

CREATE TABLE profile_data (
  id     bigint NOT NULL,
  token  text   NOT NULL,
  panels text   NOT NULL
) PARTITION BY RANGE (id);
CREATE INDEX profile_data_token ON profile_data (token);

-- Tokens are unique across every deployment: a token is claimed here, in the same transaction as
-- its profile. A claim whose profile was pruned (profile_id below the horizon) may be taken again;
-- a live one never is: the second profile is rejected, not stored over the first.
-- `seq` grows with every claim: each instance reads the claims made since it last looked, so
-- that it stops drawing tokens other instances hold (a clash then needs two draws within a second).
CREATE TABLE profile_tokens (
  token      text      PRIMARY KEY,
  profile_id bigint    NOT NULL,
  seq        bigserial NOT NULL
);
CREATE INDEX profile_tokens_profile_id ON profile_tokens (profile_id);
CREATE INDEX profile_tokens_seq ON profile_tokens (seq);

-- Every profile with an id below `horizon` has been pruned.
CREATE TABLE profile_horizon (
  one     boolean PRIMARY KEY DEFAULT true CHECK (one),
  horizon bigint  NOT NULL
);
INSERT INTO profile_horizon (horizon) VALUES (0);

-- The deployments that ever wrote here (the listing shows a Deployment column when there are several).
CREATE TABLE profile_deployments (
  name text PRIMARY KEY
);
