-- The trigram indexes of the distinct URLs and IPs without GIN's pending list (fastupdate): under
-- distinct-URL scanner traffic the list (up to 4 MB) held most of the store's bytes between merges,
-- and each merge doubled the index for a while. Entries now go into the index as they are written,
-- and the space VACUUM frees in it is reused (retention vacuums it after pruning: issue #20).
ALTER INDEX profile_urls_trgm SET (fastupdate = off);
ALTER INDEX profile_ips_trgm SET (fastupdate = off);
