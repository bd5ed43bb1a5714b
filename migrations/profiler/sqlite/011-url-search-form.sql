-- URLs are searched in their search form (plugins/profiler/engine/url-search-form.ts: escapes
-- decoded where they are UTF-8), so that `café` finds `/caf%c3%a9` and `admin` finds `/%61dmin`,
-- while `url` stays exactly what the client sent. The writer computes the form when a distinct URL
-- enters this table; NULL when it is the URL itself (every URL without a `%`: no bytes spent).
--
-- The trigram index (profile_urls_fts, external content) now holds coalesce(search_url, url): the
-- triggers pass that value, and the delete trigger exactly the value that was indexed. Its content
-- table's `url` column is therefore not what is indexed: never 'rebuild' it from the content.
--
-- URLs stored before this migration have search_url NULL and stay indexed as sent until the writer
-- meets them again (a new profile of that URL): it then sets their form, and the update trigger
-- moves the index entry (docs/profiler.md, "Non-ASCII URLs").
ALTER TABLE profile_urls ADD COLUMN search_url TEXT;

DROP TRIGGER profile_urls_indexed;
DROP TRIGGER profile_urls_unindexed;
CREATE TRIGGER profile_urls_indexed AFTER INSERT ON profile_urls BEGIN
  INSERT INTO profile_urls_fts (rowid, url) VALUES (new.id, coalesce(new.search_url, new.url));
END;
CREATE TRIGGER profile_urls_unindexed AFTER DELETE ON profile_urls BEGIN
  INSERT INTO profile_urls_fts (profile_urls_fts, rowid, url) VALUES ('delete', old.id, coalesce(old.search_url, old.url));
END;
CREATE TRIGGER profile_urls_reindexed AFTER UPDATE OF search_url ON profile_urls BEGIN
  INSERT INTO profile_urls_fts (profile_urls_fts, rowid, url) VALUES ('delete', old.id, coalesce(old.search_url, old.url));
  INSERT INTO profile_urls_fts (rowid, url) VALUES (new.id, coalesce(new.search_url, new.url));
END;
