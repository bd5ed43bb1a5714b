-- What the db and logs panels count per request, on the profile's row (filters, listing).
ALTER TABLE profiles ADD COLUMN query_count integer NOT NULL DEFAULT 0;
ALTER TABLE profiles ADD COLUMN query_ms double precision NOT NULL DEFAULT 0;
ALTER TABLE profiles ADD COLUMN log_warnings integer NOT NULL DEFAULT 0;
ALTER TABLE profiles ADD COLUMN log_errors integer NOT NULL DEFAULT 0;
