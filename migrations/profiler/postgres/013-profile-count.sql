-- How many profiles each time partition holds (issue 38): retention reads these rows instead of
-- counting the recent partitions after every batch (a count of an hour's rows: it grew with the
-- store). Every writer adds the profiles it inserted, per partition, as the last statement of its
-- batch's transaction (the rows are locked only while it commits); retention takes off the rows it
-- deletes, and deletes a partition's row with the partition, in the transaction that drops it (the
-- drop waits for every batch writing into it, and a batch after it recreates the partition and its
-- row): exact with several instances sharing the store, and a crash rolls a count back with its rows.
-- Instances of a release before this one do not keep them: while one still writes here (a rolling
-- upgrade), the count lacks what it adds and deletes.
CREATE TABLE profile_counts (
  partition bigint PRIMARY KEY,
  profiles  bigint NOT NULL
);
-- A store written by a previous release is counted once, here (profiles_p<n>: partition n).
INSERT INTO profile_counts (partition, profiles)
  SELECT substring(p.tableoid::regclass::text FROM '_p([0-9]+)$')::bigint, count(*) FROM profiles p GROUP BY p.tableoid;
