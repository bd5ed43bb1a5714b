-- Panels stored by the batch (issue 38): one row holds the panels of every profile a batch wrote,
-- their JSON texts one after the other, compressed together (engine/sqlite/panels-block.ts),
-- instead of one profile_data row per profile: a row of ~2.6 KB took a page of its own and its
-- b-tree entry (4.8 KB on disk a profile of the bench's mix). Each profile names its block and
-- where its panels are in it (byte offset and length, uncompressed). `last_id` bounds the ids of
-- the block's profiles from above: once retention has deleted through it, no profile names the
-- block any more, and it goes in the same transaction.
-- `process_key` names the per-process panels (migration 007) of every profile in the block.
-- AUTOINCREMENT: a block id is never used twice, so a reader may keep a decoded block by its id.
CREATE TABLE profile_blocks (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  last_id     INTEGER NOT NULL,
  process_key TEXT,
  -- The texts' size before compression: a profile's share of the block's bytes is its text's share of it.
  raw_bytes   INTEGER NOT NULL,
  panels      BLOB    NOT NULL
);
CREATE INDEX profile_blocks_last_id ON profile_blocks (last_id);
-- NULL for the profiles written before this migration: their panels stay in profile_data.
ALTER TABLE profiles ADD COLUMN block_id INTEGER;
ALTER TABLE profiles ADD COLUMN block_at INTEGER;
ALTER TABLE profiles ADD COLUMN block_bytes INTEGER;
-- The count of profiles (migration 012) is kept by the writer, once per transaction, instead of by
-- a trigger per row: the trigger cost ~20 µs a profile inserted (measured on a real store: 35 µs
-- against 15 for the row and its indexes), more than the row itself. Every release that writes this
-- file from now on updates the count with the rows in its transaction.
DROP TRIGGER profiles_counted;
DROP TRIGGER profiles_uncounted;
