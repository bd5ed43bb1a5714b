-- Contact-centre advisors on PostgreSQL, looked up by their code: the same columns as the SQLite
-- table (times as ISO-8601 UTC text), so that both answer exactly the same.
CREATE TABLE advisors (
  code            text PRIMARY KEY NOT NULL,
  first_name      text NOT NULL,
  last_name       text NOT NULL,
  email           text NOT NULL,
  team            text NOT NULL,
  phone_extension text,
  status          text NOT NULL DEFAULT 'offline'
                  CHECK (status IN ('available', 'busy', 'away', 'offline')),
  last_seen_at    text,
  updated_at      text NOT NULL
);

CREATE INDEX advisors_team ON advisors (team);
