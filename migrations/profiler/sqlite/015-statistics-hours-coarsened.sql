-- How far hour rows were given up to the statistics' share of PROFILER_MAX_BYTES (issue 37): every
-- hour row before hours_before_ms is gone, so a window reaching back past it says it holds none.
ALTER TABLE profile_statistics_coarsened ADD COLUMN hours_before_ms INTEGER NOT NULL DEFAULT 0;
