-- What the db and logs panels count per request, on the profile's row (filters, listing).
ALTER TABLE profiles ADD COLUMN query_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE profiles ADD COLUMN query_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE profiles ADD COLUMN log_warnings INTEGER NOT NULL DEFAULT 0;
ALTER TABLE profiles ADD COLUMN log_errors INTEGER NOT NULL DEFAULT 0;
