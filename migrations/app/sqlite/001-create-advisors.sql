-- Contact-centre advisors, looked up by their code.
-- Times are ISO-8601 UTC strings so that the sqlite3 shell shows them as they are.
CREATE TABLE advisors (
  code            TEXT PRIMARY KEY NOT NULL,
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  email           TEXT NOT NULL,
  team            TEXT NOT NULL,
  phone_extension TEXT,
  status          TEXT NOT NULL DEFAULT 'offline'
                  CHECK (status IN ('available', 'busy', 'away', 'offline')),
  last_seen_at    TEXT,
  updated_at      TEXT NOT NULL
);

CREATE INDEX advisors_team ON advisors (team);
