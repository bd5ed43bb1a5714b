-- How many profiles the store holds, kept in step by triggers in the transaction of every insert
-- and delete (issue 38): retention reads this row instead of counting the table, which reads every
-- page of an index (milliseconds a batch at a million profiles, twice). Triggers, not the writer's
-- code, so that every connection that writes the file keeps it exact: other processes sharing it,
-- whatever their release, and a crash rolls the count back with the rows it counted.
CREATE TABLE profile_counts (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  profiles INTEGER NOT NULL
);
-- A store written by a previous release is counted once, here.
INSERT INTO profile_counts (id, profiles) SELECT 1, count(*) FROM profiles;
CREATE TRIGGER profiles_counted AFTER INSERT ON profiles BEGIN
  UPDATE profile_counts SET profiles = profiles + 1 WHERE id = 1;
END;
CREATE TRIGGER profiles_uncounted AFTER DELETE ON profiles BEGIN
  UPDATE profile_counts SET profiles = profiles - 1 WHERE id = 1;
END;
