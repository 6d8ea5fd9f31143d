-- RIAJ replica (issue 5; art. 20.2, R1): the active snapshot of the Registro de
-- Interdicciones de Acceso al Juego, its identifiers as 16-byte salted SHA-256
-- digests (never the register in clear), the change-feed position, and a log of
-- imports / feed pulls (codes only, no identifiers).
CREATE TABLE registry_snapshot (
    snapshot_id    INTEGER PRIMARY KEY,
    version        TEXT    NOT NULL,
    scheme         TEXT    NOT NULL,
    salt           BLOB    NOT NULL,
    scope          TEXT    NOT NULL,
    as_of          TEXT    NOT NULL,            -- ISO-8601 UTC: when the snapshot was current
    imported_at    TEXT    NOT NULL,
    entry_count    INTEGER NOT NULL,
    content_sha256 TEXT    NOT NULL,
    signed         INTEGER NOT NULL CHECK (signed IN (0, 1)),
    feed_as_of     TEXT,                        -- change feed complete up to here (UTC)
    feed_applied   INTEGER NOT NULL DEFAULT 0,  -- feed entries applied on top of the snapshot
    active         INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1))
);

CREATE UNIQUE INDEX registry_snapshot_one_active ON registry_snapshot (active) WHERE active = 1;

CREATE TABLE registry_entry (
    snapshot_id INTEGER NOT NULL,
    digest      BLOB    NOT NULL,
    PRIMARY KEY (snapshot_id, digest)
) WITHOUT ROWID;

CREATE TABLE registry_event (
    event_id INTEGER PRIMARY KEY,
    at       TEXT NOT NULL,
    kind     TEXT NOT NULL,            -- IMPORT, IMPORT_REJECTED, FEED, FEED_REJECTED
    code     TEXT NOT NULL,            -- OK or an error code
    version  TEXT NOT NULL DEFAULT ''
);
