-- 0051: the name words carry the visitor's sort form, so the visitors holding a word are
-- read straight from the word index in the search's order (folded name, then file
-- number) and a search stops at its first matches (art. 20.4: the inspector waits for
-- the answer). The key is (token, search_name, file_number): a word's visitors are
-- contiguous and in that order. db/visitors.py writes search_name with the visitor's
-- own, in the same transaction that changes a name.
CREATE TABLE visitor_tokens_ordered (
    token       TEXT NOT NULL,
    search_name TEXT NOT NULL,
    file_number INTEGER NOT NULL REFERENCES visitors (file_number) ON DELETE CASCADE,
    PRIMARY KEY (token, search_name, file_number)
) STRICT, WITHOUT ROWID;
INSERT INTO visitor_tokens_ordered (token, search_name, file_number)
    SELECT t.token, v.search_name, t.file_number
    FROM visitor_tokens AS t JOIN visitors AS v ON v.file_number = t.file_number
    ORDER BY 1, 2, 3;
DROP TABLE visitor_tokens;
ALTER TABLE visitor_tokens_ordered RENAME TO visitor_tokens;
CREATE INDEX visitor_tokens_by_file ON visitor_tokens (file_number, token);
