-- The bytes a route statistics row takes, measured once the table is over its share (its bytes over
-- its rows) and forgotten when the table is rewritten (VACUUM FULL): coarsening reckons the live
-- rows' bytes with it. Kept in the store, not by each instance: instances sharing the store coarsen
-- in turn, and one that measured it after another's deletes (the table's bytes do not fall with
-- them) took every row for larger and deleted several times what was over. NULL: not measured.
ALTER TABLE profile_statistics_coarsened ADD COLUMN row_bytes float8;
