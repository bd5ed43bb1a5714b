-- Per-process panels (the environment: plugins/profiler/panels/panel.ts, ProcessPanel), as on
-- SQLite (sqlite/007): stored once per content, keyed by a hash of their JSON, named by each
-- profile's panels row. `last_id`: the newest profile that names the row; once it is below the
-- retention horizon (profile_horizon, 001) no profile names it any more and the sweep deletes it,
-- as it does the distinct URLs and IPs (003). An instance that writes the row again moves
-- `last_id` up under the row's lock, so a sweep running at the same time re-reads it and keeps it.
CREATE TABLE profile_processes (
  key     text   PRIMARY KEY,
  panels  text   NOT NULL,
  last_id bigint NOT NULL
);
ALTER TABLE profile_data ADD COLUMN process_key text;
