-- 0030: the audit chain is keyed and commits to the rows it records (art. 20.4: the file
-- is confidential and kept; art. 14.1.b: the game director answers for it).
--
-- digest = HMAC-SHA256 under the audit key, a secret kept outside this file
-- (db/audit_key.py), so the file key alone cannot rewrite the record consistently.
-- refs = the keyed digests of the visit, visitor, card, ban, staff and observation rows
-- written in the entry's transaction (db/audit_chain.py); audit_refs points to the
-- newest entry committing to each row still present, for verification.
--
-- Entries written before this migration keep keyed = 0 until the store, holding the
-- key, re-chains them from genesis once and records the upgrade as an entry
-- (db/audit.py); SQL cannot compute the HMAC, and the key is not in the file.

ALTER TABLE audit ADD COLUMN refs TEXT NOT NULL DEFAULT '{}';
ALTER TABLE audit ADD COLUMN keyed INTEGER NOT NULL DEFAULT 0 CHECK (keyed IN (0, 1));
CREATE INDEX audit_unkeyed ON audit (seq) WHERE keyed = 0;

-- Entries never change, but for that one re-chaining of an unkeyed entry: only its
-- prev_digest, digest and keyed flag, and only from 0 to 1.
DROP TRIGGER audit_no_update;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
WHEN OLD.keyed = 1 OR NEW.keyed IS NOT 1
    OR NEW.seq IS NOT OLD.seq OR NEW.at IS NOT OLD.at OR NEW.actor IS NOT OLD.actor
    OR NEW.action IS NOT OLD.action OR NEW.subject IS NOT OLD.subject
    OR NEW.details IS NOT OLD.details OR NEW.refs IS NOT OLD.refs
BEGIN
    SELECT RAISE(ABORT, 'audit trail is append-only');
END;

CREATE TABLE audit_refs (
    ref TEXT PRIMARY KEY,                          -- 'card:17', 'visit:9', 'staff:hmac:...'
    seq INTEGER NOT NULL REFERENCES audit (seq)
) STRICT, WITHOUT ROWID;
