-- The profiler's own store (the file is created with auto_vacuum = INCREMENTAL, see
-- plugins/profiler/index.ts, so that pruned pages go back to the file system).
--
-- `profiles`: one narrow, searchable row per recorded request.
-- `id` follows the request start: id = start_ms * 1024 + n (n < 1024), so "newest first" is the
-- primary key read backwards and a time range is an id range: no sort, no time index.
CREATE TABLE profiles (
  id           INTEGER PRIMARY KEY,
  token        TEXT    NOT NULL UNIQUE,
  parent_token TEXT,
  type         TEXT    NOT NULL DEFAULT 'request',
  ip           TEXT    NOT NULL,
  method       TEXT    NOT NULL,
  url          TEXT    NOT NULL,
  url_id       INTEGER NOT NULL,
  status_code  INTEGER NOT NULL,
  duration_ms  REAL    NOT NULL,
  route        TEXT,
  -- request start, derived from id (no storage): epoch milliseconds and ISO-8601 UTC
  -- (milliseconds printed from integers: strftime's %f goes through a float and can be 1 ms off)
  time_ms      INTEGER GENERATED ALWAYS AS (id >> 10) VIRTUAL,
  time         TEXT    GENERATED ALWAYS AS (
                 strftime('%Y-%m-%dT%H:%M:%S', (id >> 10) / 1000, 'unixepoch') || printf('.%03dZ', (id >> 10) % 1000)
               ) VIRTUAL
);

-- Each index also holds the row id, so "WHERE x = ? ORDER BY id DESC LIMIT n" reads n entries.
CREATE INDEX profiles_ip ON profiles (ip);
CREATE INDEX profiles_method ON profiles (method);
CREATE INDEX profiles_status_code ON profiles (status_code);
CREATE INDEX profiles_url_id ON profiles (url_id);

-- Each distinct URL once, with a trigram index for substring search: the full-text index grows
-- with distinct URLs, not with requests (a status poll called a million times is one entry).
CREATE TABLE profile_urls (
  id  INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE profile_urls_fts USING fts5(
  url, content = 'profile_urls', content_rowid = 'id', tokenize = 'trigram case_sensitive 1', detail = 'none'
);
CREATE TRIGGER profile_urls_indexed AFTER INSERT ON profile_urls BEGIN
  INSERT INTO profile_urls_fts (rowid, url) VALUES (new.id, new.url);
END;
CREATE TRIGGER profile_urls_unindexed AFTER DELETE ON profile_urls BEGIN
  INSERT INTO profile_urls_fts (profile_urls_fts, rowid, url) VALUES ('delete', old.id, old.url);
END;

-- Each distinct client address once: an IP substring filter is resolved here first.
CREATE TABLE profile_ips (
  ip TEXT PRIMARY KEY
) WITHOUT ROWID;

-- Panel data, read only by the profile page: one JSON object per profile
-- ({ "request": {...}, "performance": {...}, "exception": {...}, "router": {...} }).
CREATE TABLE profile_data (
  profile_id INTEGER PRIMARY KEY,
  panels     TEXT NOT NULL
);
