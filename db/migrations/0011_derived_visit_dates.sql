-- 0011: visit dates are no longer copied into visitors. first_seen/last_seen are read
-- from the visits themselves (then the open card, then the ban that keep a visitor),
-- so a purge never has to rewrite ~every visitor row to forget an erased visit date
-- (art. 20.4), and an admission no longer rewrites the visitor row.
ALTER TABLE visitors DROP COLUMN first_seen;
ALTER TABLE visitors DROP COLUMN last_seen;
