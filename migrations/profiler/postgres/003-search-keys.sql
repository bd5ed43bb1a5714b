-- URL and IP substring searches through the distinct values, as on SQLite.
--
-- A trigram index on every row of every partition made a rare URL substring cost one GIN lookup
-- per partition (about 0.3 ms each: ~40 ms at 121 hourly partitions), and the planner, unable to
-- tell rare from common, often walked every row newest first instead (~900 ms at 1,000,000
-- profiles). Now the trigram indexes cover each distinct URL and IP once; the reader finds the
-- matching values there, then reads the newest rows of each value through a btree of
-- (value, id) in every partition, and merges them.
--
-- `first_id`, `last_id`: the oldest and newest profile with this value, so that the reader reads
-- only the partitions between them (a URL seen once: one partition, not all of them). Once
-- `last_id` is below the retention horizon, no profile has the value any more and the row is swept
-- (profile_horizon, 001).

-- URLs can be longer than a btree entry may be: keyed by a 64-bit hash (the reader checks the
-- substring on each row, so a collision could only hide a URL from its own search).
CREATE TABLE profile_urls (
  hash     bigint PRIMARY KEY,
  url      text   NOT NULL,
  first_id bigint NOT NULL,
  last_id  bigint NOT NULL
);
CREATE INDEX profile_urls_last_id ON profile_urls (last_id);
CREATE INDEX profile_urls_trgm ON profile_urls USING gin (url gin_trgm_ops);

CREATE TABLE profile_ips (
  ip       text   PRIMARY KEY,
  first_id bigint NOT NULL,
  last_id  bigint NOT NULL
);
CREATE INDEX profile_ips_last_id ON profile_ips (last_id);
CREATE INDEX profile_ips_trgm ON profile_ips USING gin (ip gin_trgm_ops);

INSERT INTO profile_urls (hash, url, first_id, last_id)
  SELECT hashtextextended(url, 0), min(url), min(id), max(id) FROM profiles GROUP BY 1;
INSERT INTO profile_ips (ip, first_id, last_id)
  SELECT ip, min(id), max(id) FROM profiles GROUP BY ip;

-- The rows of one URL, newest first (profiles_ip_id already serves IPs).
CREATE INDEX profiles_url_hash_id ON profiles (hashtextextended(url, 0), id);
DROP INDEX profiles_url_trgm;
DROP INDEX profiles_ip_trgm;
