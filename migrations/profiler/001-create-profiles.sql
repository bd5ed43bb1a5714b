-- The profiler's own store. One row per recorded request in `profiles` (narrow, searchable),
-- its panel data apart in `profile_data` (read only by the detail page).
--
-- `id` follows the request start: id = start_ms * 1024 + n (n < 1024, unique within a millisecond),
-- so "newest first" is the primary key read backwards and a time range is an id range.
CREATE TABLE profiles (
  id           INTEGER PRIMARY KEY,
  token        TEXT    NOT NULL UNIQUE,
  parent_token TEXT,
  type         TEXT    NOT NULL DEFAULT 'request',
  ip           TEXT    NOT NULL,
  method       TEXT    NOT NULL,
  url          TEXT    NOT NULL,
  status_code  INTEGER NOT NULL,
  duration_ms  REAL    NOT NULL,
  route        TEXT,
  -- request start, derived from id (no storage): epoch milliseconds and ISO-8601 UTC
  time_ms      INTEGER GENERATED ALWAYS AS (id >> 10) VIRTUAL,
  -- (milliseconds printed from integers: strftime's %f goes through a float and can be 1 ms off)
  time         TEXT    GENERATED ALWAYS AS (
                 strftime('%Y-%m-%dT%H:%M:%S', (id >> 10) / 1000, 'unixepoch') || printf('.%03dZ', (id >> 10) % 1000)
               ) VIRTUAL
);

CREATE INDEX profiles_ip ON profiles (ip);
CREATE INDEX profiles_method ON profiles (method);
CREATE INDEX profiles_status_code ON profiles (status_code);

-- Panel data as one JSON object per profile: { "request": {...}, "exception": {...}, ... }
CREATE TABLE profile_data (
  profile_id INTEGER PRIMARY KEY REFERENCES profiles (id) ON DELETE CASCADE,
  panels     TEXT NOT NULL
);
