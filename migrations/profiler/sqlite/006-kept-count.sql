-- Route statistics: how many of a row's requests were kept as profiles (PROFILER_SAMPLE and its
-- keep-rules), beside how many were seen (count). Before sampling every recorded request was kept.
ALTER TABLE profile_route_stats ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
UPDATE profile_route_stats SET kept = count;
