-- URLs are searched in their search form (plugins/profiler/engine/url-search-form.ts: escapes
-- decoded where they are UTF-8), so that `café` finds `/caf%c3%a9` and `admin` finds `/%61dmin`,
-- while `url` stays exactly what the client sent. The writer computes the form with each batch's
-- distinct URLs; NULL when it is the URL itself (every URL without a `%`: no bytes spent).
--
-- The trigram index covers coalesce(search_url, url) instead of url (without GIN's pending list,
-- as 004 set). URLs stored before this migration have search_url NULL and stay indexed as sent until
-- the writer meets them again (a new profile of that URL sets their form: docs/profiler.md,
-- "Non-ASCII URLs").
ALTER TABLE profile_urls ADD COLUMN search_url text;
DROP INDEX profile_urls_trgm;
CREATE INDEX profile_urls_search_trgm ON profile_urls USING gin ((coalesce(search_url, url)) gin_trgm_ops) WITH (fastupdate = off);
