-- 0001: the visitor file (fichero de visitantes, art. 20.3), cards (art. 22), internal
-- bans (art. 21.2-3), staff (art. 18), settings and the hash-chained audit trail.
--
-- Numbering: 0001 and 0010+ belong to the visitor-file schema (db/ owner);
-- 0002-0009 are RESERVED for the RIAJ replica tables (registry owner).
-- db/migrate.py applies every numbered file not yet recorded in schema_migrations,
-- in numeric order, one transaction each, so a reserved number added later is
-- still applied to a database already at a higher PRAGMA user_version.
--
-- Times are UTC text 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (fixed width: text order is time
-- order); dates are Madrid calendar dates 'YYYY-MM-DD'. No statement here may be
-- BEGIN/COMMIT: the migrator wraps the file in its own transaction.

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    applied_at TEXT NOT NULL
) STRICT;

-- One-row-per-sequence counters. Card numbers are taken here inside the same
-- BEGIN IMMEDIATE transaction that records the card (art. 22.1: gapless, correlative,
-- never reused even when old cards are erased by retention).
CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    next INTEGER NOT NULL CHECK (next >= 1)
) STRICT, WITHOUT ROWID;
INSERT INTO counters (name, next) VALUES ('card', 1), ('audit', 1);

-- Ficha personal (art. 22.3): file_number assigned at the first visit, never reused.
CREATE TABLE visitors (
    file_number INTEGER PRIMARY KEY AUTOINCREMENT,
    identity    TEXT NOT NULL UNIQUE,          -- IdentityKey.text
    surname     TEXT NOT NULL,
    given_names TEXT NOT NULL,
    search_name TEXT NOT NULL,                 -- accent-folded upper case, for sorting
    birth_date  TEXT,
    nationality TEXT NOT NULL,
    first_seen  TEXT NOT NULL,
    last_seen   TEXT NOT NULL
) STRICT;

-- Accent-folded name words for prefix search (db/names.py). A plain b-tree rather
-- than FTS5: deletes are real row deletes that secure_delete wipes, on any SQLite.
CREATE TABLE visitor_tokens (
    token       TEXT NOT NULL,
    file_number INTEGER NOT NULL REFERENCES visitors (file_number) ON DELETE CASCADE,
    PRIMARY KEY (token, file_number)
) STRICT, WITHOUT ROWID;

-- Successive visits (art. 20.3, R2); officials on duty keep their capacity (art. 24, R13).
CREATE TABLE visits (
    visit_id          INTEGER PRIMARY KEY,
    file_number       INTEGER NOT NULL REFERENCES visitors (file_number),
    at                TEXT NOT NULL,
    desk_id           TEXT NOT NULL,
    operator          TEXT NOT NULL,
    verdict           TEXT NOT NULL,
    reasons           TEXT NOT NULL,           -- JSON array of reason codes
    document_type     TEXT NOT NULL,
    document_number   TEXT NOT NULL,
    registry_status   TEXT NOT NULL,
    registry_source   TEXT NOT NULL,
    registry_version  TEXT NOT NULL,
    registry_age_s    INTEGER,
    official_capacity TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX visits_by_file ON visits (file_number, at);
CREATE INDEX visits_by_at ON visits (at);

-- Free-text observations (art. 20.3).
CREATE TABLE observations (
    observation_id INTEGER PRIMARY KEY,
    file_number    INTEGER NOT NULL REFERENCES visitors (file_number) ON DELETE CASCADE,
    at             TEXT NOT NULL,
    author         TEXT NOT NULL,
    text           TEXT NOT NULL
) STRICT;
CREATE INDEX observations_by_file ON observations (file_number, at);
CREATE INDEX observations_by_at ON observations (at);

-- Entry cards (art. 22). visit_id becomes NULL when retention erases the visit of a
-- card that is still valid (multi-day cards); the card goes once its validity ends.
CREATE TABLE cards (
    number        INTEGER PRIMARY KEY,
    file_number   INTEGER NOT NULL REFERENCES visitors (file_number),
    visit_id      INTEGER UNIQUE REFERENCES visits (visit_id),
    card_type     TEXT NOT NULL,
    price_cents   INTEGER NOT NULL CHECK (price_cents >= 0),
    issued_at     TEXT NOT NULL,
    valid_from    TEXT NOT NULL,
    valid_until   TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ISSUED', 'PRINTED', 'VOIDED')),
    exceptional   INTEGER NOT NULL CHECK (exceptional IN (0, 1)),
    private_rooms INTEGER NOT NULL CHECK (private_rooms IN (0, 1)),
    authorised_by TEXT NOT NULL,
    print_count   INTEGER NOT NULL DEFAULT 0,
    void_reason   TEXT NOT NULL DEFAULT '',
    CHECK (valid_until >= valid_from),
    CHECK (exceptional = 0 OR authorised_by <> '')   -- art. 23.5: a named director
) STRICT;
CREATE INDEX cards_by_file ON cards (file_number);

-- Prints, reprints and voids, each with its reason: the number is kept, never deleted.
CREATE TABLE card_events (
    event_id    INTEGER PRIMARY KEY,
    card_number INTEGER NOT NULL REFERENCES cards (number) ON DELETE CASCADE,
    at          TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('PRINTED', 'REPRINT', 'VOIDED')),
    reason      TEXT NOT NULL,
    actor       TEXT NOT NULL
) STRICT;
CREATE INDEX card_events_by_card ON card_events (card_number);

-- Internal bans (art. 21.2-3, R5): dated, reasoned, optional expiry, lifted with a reason.
CREATE TABLE bans (
    ban_id      INTEGER PRIMARY KEY,
    identity    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    decided_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT,
    lifted_at   TEXT,
    lift_reason TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX bans_by_identity ON bans (identity);

-- Casino staff and game directors (art. 18, R15).
CREATE TABLE staff (
    identity TEXT PRIMARY KEY,
    name     TEXT NOT NULL,
    role     TEXT NOT NULL CHECK (role IN ('STAFF', 'DIRECTOR')),
    active   INTEGER NOT NULL CHECK (active IN (0, 1))
) STRICT, WITHOUT ROWID;

-- Settings and generated secrets (e.g. the card-code MAC key), inside the encrypted file.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value ANY NOT NULL
) STRICT, WITHOUT ROWID;

-- Append-only audit trail; digest = SHA-256(prev digest + canonical row), db/audit_chain.py.
CREATE TABLE audit (
    seq         INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    details     TEXT NOT NULL,                 -- canonical JSON object
    prev_digest TEXT NOT NULL,
    digest      TEXT NOT NULL
) STRICT;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'audit trail is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'audit trail is append-only');
END;
