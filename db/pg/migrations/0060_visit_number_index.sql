-- 0060: the blind index of the document number shown at each visit (db/pg/crypto.py,
-- KeyRing.number_index). An inspector's number (art. 20.4) finds the visits it was shown
-- at through it, without the desk opening every sealed number. Visits recorded before
-- this migration have none (NULL) until a re-encryption (db rotate-key --reencrypt)
-- computes it; the search still opens those, while they are few enough.
ALTER TABLE visits ADD COLUMN number_index bytea;
CREATE INDEX visits_by_number ON visits (number_index) WHERE number_index IS NOT NULL;
