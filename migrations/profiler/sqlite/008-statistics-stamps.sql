-- The hand-overs whose statistics-only requests were counted (issue 24; engine/contract.ts:
-- StatisticsStamp): a batch retried after its commit, its answer lost, finds its (source, seq)
-- here and is not counted again. Written in the batch's transaction; a source's stamps below its
-- lowest outstanding batch are deleted in the same transaction, and stopped sources' stamps by
-- retention after a day (written_ms, epoch milliseconds): a handful of rows, no other index.
CREATE TABLE profile_statistics_stamps (
  source TEXT NOT NULL,
  seq INTEGER NOT NULL,
  written_ms INTEGER NOT NULL,
  PRIMARY KEY (source, seq)
) WITHOUT ROWID;
