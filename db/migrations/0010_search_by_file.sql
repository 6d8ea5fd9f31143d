-- 0010: reverse index on name words, so a multi-word search checks the other words of
-- each candidate visitor by (file_number, token) instead of scanning the word range,
-- and deleting a visitor's words (ON DELETE CASCADE) does not scan the token table.
CREATE INDEX visitor_tokens_by_file ON visitor_tokens (file_number, token);
