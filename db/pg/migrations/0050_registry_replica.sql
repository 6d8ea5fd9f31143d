-- 0050: the replica of the Registro de Interdicciones de Acceso al Juego (Decreto
-- 58/2006, art. 20.2; art. 23) shared by every desk of the operating unit (arts.
-- 154-155): one import or one change-feed pull updates it for all desks. Numbers
-- 0050-0059 belong to the replica (db/pg/registry_replica.py).
--
-- The same tables as the SQLCipher file's db/migrations/0002_registry.sql, with one
-- difference the shared server needs: an entry is not the register's salted digest
-- sha256(salt || number)[:16] itself (salt and digest side by side would let the
-- server's administrator test every document number) but HMAC-SHA256 of that digest
-- under a secret of the visitor file (PgStore.secret, sealed by the desk), truncated to
-- 16 bytes. No identifier is held in clear, nor in a form testable without the key.
--
-- Writers (import, feed) take LOCK TABLE registry_snapshot IN SHARE ROW EXCLUSIVE MODE
-- first: one writer at a time across desks; a check (a plain SELECT) never waits.

CREATE TABLE registry_snapshot (
    snapshot_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    version        text        NOT NULL,
    scheme         text        NOT NULL,
    salt           bytea       NOT NULL,
    scope          text        NOT NULL,
    as_of          timestamptz NOT NULL,   -- when the snapshot was current
    imported_at    timestamptz NOT NULL,
    entry_count    bigint      NOT NULL,
    content_sha256 text        NOT NULL,
    signed         boolean     NOT NULL,
    feed_as_of     timestamptz,            -- change feed complete up to here
    feed_applied   bigint      NOT NULL DEFAULT 0,  -- feed entries applied on top
    feed_page      bytea,                  -- sha256 of the last feed page applied
    active         boolean     NOT NULL DEFAULT false
);

CREATE UNIQUE INDEX registry_snapshot_one_active ON registry_snapshot (active) WHERE active;

-- One row per listed identity of a snapshot; a check is one probe of the primary key.
CREATE TABLE registry_entry (
    snapshot_id bigint NOT NULL,
    digest      bytea  NOT NULL CHECK (octet_length(digest) = 16),
    PRIMARY KEY (snapshot_id, digest)
);

-- Imports and feed pulls, accepted or refused: codes only, never an identifier.
CREATE TABLE registry_event (
    event_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at       timestamptz NOT NULL,
    kind     text        NOT NULL,     -- IMPORT, IMPORT_REJECTED, FEED, FEED_REJECTED
    code     text        NOT NULL,     -- OK or an error code
    version  text        NOT NULL DEFAULT '',
    by_role  text        NOT NULL DEFAULT current_user  -- the desk's database role
);
