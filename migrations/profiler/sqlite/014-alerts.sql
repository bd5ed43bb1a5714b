-- Alerts (issue 40): each rule's state per route and method it watches, the history of its state
-- changes, the webhook deliveries (an outbox: written with the state change, sent in order per
-- webhook, kept as history once done), and the lease that lets one instance evaluate at a time.
CREATE TABLE profiler_alert_states (
  rule         TEXT NOT NULL,
  route        TEXT NOT NULL,
  method       TEXT NOT NULL,
  state        TEXT NOT NULL,
  since_ms     INTEGER NOT NULL,
  value        REAL,
  count        INTEGER NOT NULL DEFAULT 0,
  evaluated_ms INTEGER NOT NULL,
  notified_ms  INTEGER,
  PRIMARY KEY (rule, route, method)
) WITHOUT ROWID;

CREATE TABLE profiler_alert_changes (
  id       INTEGER PRIMARY KEY AUTOINCREMENT,
  at_ms    INTEGER NOT NULL,
  rule     TEXT NOT NULL,
  route    TEXT NOT NULL,
  method   TEXT NOT NULL,
  state    TEXT NOT NULL,
  value    REAL
);
CREATE INDEX profiler_alert_changes_at ON profiler_alert_changes (at_ms);

CREATE TABLE profiler_alert_deliveries (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook     TEXT NOT NULL,
  rule        TEXT NOT NULL,
  state       TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  body        TEXT NOT NULL,
  status      TEXT NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0,
  next_ms     INTEGER NOT NULL,
  done_ms     INTEGER,
  last_error  TEXT
);
CREATE INDEX profiler_alert_deliveries_pending ON profiler_alert_deliveries (status, webhook, id);
CREATE INDEX profiler_alert_deliveries_created ON profiler_alert_deliveries (created_ms);

CREATE TABLE profiler_alert_lease (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
