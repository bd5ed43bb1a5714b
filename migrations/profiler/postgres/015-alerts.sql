-- Alerts (issue 40): each rule's state per route and method it watches, the history of its state
-- changes, the webhook deliveries (an outbox: written with the state change, sent in order per
-- webhook, kept as history once done), and the lease that lets one instance evaluate at a time.
CREATE TABLE profiler_alert_states (
  rule         text NOT NULL,
  route        text NOT NULL,
  method       text NOT NULL,
  state        text NOT NULL,
  since_ms     bigint NOT NULL,
  value        double precision,
  count        bigint NOT NULL DEFAULT 0,
  evaluated_ms bigint NOT NULL,
  notified_ms  bigint,
  PRIMARY KEY (rule, route, method)
);

CREATE TABLE profiler_alert_changes (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at_ms    bigint NOT NULL,
  rule     text NOT NULL,
  route    text NOT NULL,
  method   text NOT NULL,
  state    text NOT NULL,
  value    double precision
);
CREATE INDEX profiler_alert_changes_at ON profiler_alert_changes (at_ms);

CREATE TABLE profiler_alert_deliveries (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook     text NOT NULL,
  rule        text NOT NULL,
  state       text NOT NULL,
  created_ms  bigint NOT NULL,
  body        text NOT NULL,
  status      text NOT NULL,
  attempts    bigint NOT NULL DEFAULT 0,
  next_ms     bigint NOT NULL,
  done_ms     bigint,
  last_error  text
);
CREATE INDEX profiler_alert_deliveries_pending ON profiler_alert_deliveries (status, webhook, id);
CREATE INDEX profiler_alert_deliveries_created ON profiler_alert_deliveries (created_ms);

CREATE TABLE profiler_alert_lease (
  name       text PRIMARY KEY,
  holder     text NOT NULL,
  expires_ms bigint NOT NULL
);
