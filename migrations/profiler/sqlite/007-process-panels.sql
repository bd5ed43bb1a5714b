-- Per-process panels (the environment: plugins/profiler/panels/panel.ts, ProcessPanel): the same
-- for every profile one process records, so stored once per content, keyed by a hash of their JSON
-- (plugins/profiler/collect/process-panels.ts), and named by each profile's panels row.
-- `last_id`: the newest profile that names the row. Retention deletes the oldest profiles first,
-- so once the oldest profile left is newer than that, no profile names the row any more and it
-- goes (in the same transaction as the profiles): the table is bounded by the profiles it serves.
CREATE TABLE profile_processes (
  key     TEXT    PRIMARY KEY,
  panels  TEXT    NOT NULL,
  last_id INTEGER NOT NULL
);
ALTER TABLE profile_data ADD COLUMN process_key TEXT;
