-- A profile is found by its token through its claim (profile_tokens' primary key: the claim of a
-- stored profile names its id), then by id in its partition; the profiles' own token index was an
-- entry more in every insert for that lookup alone (issue 38: the profiles' index entries are half of
-- the store statement's server time). Dropped on every partition with the parent's.
DROP INDEX IF EXISTS profiles_token;
