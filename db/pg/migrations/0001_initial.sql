-- 0001: the visitor file on a PostgreSQL server (Decreto 58/2006, arts. 20-25), shared
-- by every desk and annex room of one operating unit (arts. 154-155): one visitor file
-- (art. 20.3), one gapless card sequence (art. 22.1), one ban list (art. 21), one staff
-- list (art. 18), one audit trail (art. 20.4).
--
-- Personal values are sealed by the desk before they reach the server (bytea columns,
-- db/pg/crypto.py: AES-256-GCM bound to table, column and row); exact lookups go by
-- keyed blind indexes (id_index, name_tokens). key_version is the data key version
-- every sealed value of the row was sealed under (re-encryption selects on it).
--
-- db/pg/migrate.py applies each numbered file in its own transaction with its
-- schema_migrations row; no statement here may be BEGIN/COMMIT.

-- The database's identity: desks configured for another database refuse this one.
CREATE TABLE database_meta (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    database_id text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Data keys, wrapped by the installation key (never in clear on the server).
CREATE TABLE data_keys (
    version         integer PRIMARY KEY CHECK (version BETWEEN 1 AND 65535),
    key_tag         integer NOT NULL CHECK (key_tag BETWEEN 0 AND 65535),
    wrapping_key_id text NOT NULL,
    blob            bytea NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- One row per sequence. Card numbers are taken with UPDATE ... RETURNING inside the
-- admission transaction (art. 22.1: gapless, correlative, never reused; a SEQUENCE
-- would leave gaps on rollback). The 'audit' row is the head of the audit chain: every
-- write transaction locks it first, so the chain stays one chain across desks.
CREATE TABLE counters (
    name text PRIMARY KEY,
    next bigint NOT NULL CHECK (next >= 1)
);
INSERT INTO counters (name, next) VALUES ('card', 1), ('audit', 1);

-- Settings and generated secrets, sealed (bound to their key).
CREATE TABLE settings (
    key         text PRIMARY KEY,
    value       bytea NOT NULL,
    key_version integer NOT NULL
);

-- Ficha personal (art. 22.3): file_number assigned at the first visit, never reused.
CREATE SEQUENCE visitors_file_number_seq;
CREATE TABLE visitors (
    file_number bigint PRIMARY KEY,
    id_index    bytea NOT NULL UNIQUE,          -- blind index of IdentityKey.text
    identity    bytea NOT NULL,                 -- sealed IdentityKey.text
    surname     bytea NOT NULL,
    given_names bytea NOT NULL,
    birth_date  bytea,                          -- sealed ISO date, NULL when unknown
    nationality bytea NOT NULL,
    key_version integer NOT NULL
);

-- Blind-index tokens of the name words' prefixes (name search, db/pg/crypto.py).
CREATE TABLE name_tokens (
    token       bytea NOT NULL,
    file_number bigint NOT NULL REFERENCES visitors (file_number) ON DELETE CASCADE,
    PRIMARY KEY (token, file_number)
);
CREATE INDEX name_tokens_by_file ON name_tokens (file_number);

-- Successive visits (art. 20.3, R2); officials on duty keep their capacity (art. 24).
CREATE SEQUENCE visits_visit_id_seq;
CREATE TABLE visits (
    visit_id          bigint PRIMARY KEY,
    file_number       bigint NOT NULL REFERENCES visitors (file_number),
    at                timestamptz NOT NULL,
    desk_id           text NOT NULL,
    operator          text NOT NULL,
    verdict           text NOT NULL,
    reasons           text NOT NULL,            -- JSON array of reason codes
    document_type     text NOT NULL,
    document_number   bytea NOT NULL,           -- sealed
    registry_status   text NOT NULL,
    registry_source   text NOT NULL,
    registry_version  text NOT NULL,
    registry_age_s    bigint,
    official_capacity text NOT NULL DEFAULT '',
    key_version       integer NOT NULL
);
CREATE INDEX visits_by_file ON visits (file_number, at);
CREATE INDEX visits_by_at ON visits (at);

-- Free-text observations (art. 20.3), sealed.
CREATE SEQUENCE observations_observation_id_seq;
CREATE TABLE observations (
    observation_id bigint PRIMARY KEY,
    file_number    bigint NOT NULL REFERENCES visitors (file_number) ON DELETE CASCADE,
    at             timestamptz NOT NULL,
    author         text NOT NULL,
    text           bytea NOT NULL,
    key_version    integer NOT NULL
);
CREATE INDEX observations_by_file ON observations (file_number, at);
CREATE INDEX observations_by_at ON observations (at);

-- Entry cards (art. 22). visit_id becomes NULL when retention erases the visit of a
-- card still valid; the card goes once its validity ends (art. 20.4).
CREATE TABLE cards (
    number        bigint PRIMARY KEY,
    file_number   bigint NOT NULL REFERENCES visitors (file_number),
    visit_id      bigint UNIQUE REFERENCES visits (visit_id),
    card_type     text NOT NULL,
    price_cents   bigint NOT NULL CHECK (price_cents >= 0),
    issued_at     timestamptz NOT NULL,
    valid_from    date NOT NULL,
    valid_until   date NOT NULL,
    status        text NOT NULL CHECK (status IN ('ISSUED', 'PRINTED', 'VOIDED')),
    exceptional   boolean NOT NULL,
    private_rooms boolean NOT NULL,
    authorised_by text NOT NULL,
    print_count   integer NOT NULL DEFAULT 0,
    void_reason   text NOT NULL DEFAULT '',
    CHECK (valid_until >= valid_from),
    CHECK (NOT exceptional OR authorised_by <> '')   -- art. 23.5: a named director
);
CREATE INDEX cards_by_file ON cards (file_number);

-- Prints, reprints and voids, each with its reason: the number is kept.
CREATE SEQUENCE card_events_event_id_seq;
CREATE TABLE card_events (
    event_id    bigint PRIMARY KEY DEFAULT nextval('card_events_event_id_seq'),
    card_number bigint NOT NULL REFERENCES cards (number) ON DELETE CASCADE,
    at          timestamptz NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('PRINTED', 'REPRINT', 'VOIDED')),
    reason      text NOT NULL,
    actor       text NOT NULL
);
CREATE INDEX card_events_by_card ON card_events (card_number);

-- Internal bans (art. 21.2-3, R5): dated, reasoned, optional expiry, lifted with a
-- reason. The identity and both reasons are sealed.
CREATE SEQUENCE bans_ban_id_seq;
CREATE TABLE bans (
    ban_id      bigint PRIMARY KEY,
    id_index    bytea NOT NULL,
    identity    bytea NOT NULL,
    reason      bytea NOT NULL,
    decided_by  text NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz,
    lifted_at   timestamptz,
    lift_reason bytea,
    key_version integer NOT NULL
);
CREATE INDEX bans_by_identity ON bans (id_index);

-- Casino staff and game directors (art. 18, R15): identity and name sealed.
CREATE SEQUENCE staff_staff_id_seq;
CREATE TABLE staff (
    staff_id    bigint PRIMARY KEY,
    id_index    bytea NOT NULL UNIQUE,
    identity    bytea NOT NULL,
    name        bytea NOT NULL,
    role        text NOT NULL CHECK (role IN ('STAFF', 'DIRECTOR')),
    active      boolean NOT NULL,
    key_version integer NOT NULL
);

-- Append-only audit trail, keyed and chained (db/audit_chain.py). Subjects and details
-- hold numbers and keyed hashes, never names; ``at`` keeps the exact text the digest
-- covers.
CREATE TABLE audit (
    seq         bigint PRIMARY KEY,
    at          text NOT NULL,
    actor       text NOT NULL,
    action      text NOT NULL,
    subject     text NOT NULL,
    details     text NOT NULL,
    prev_digest text NOT NULL,
    digest      text NOT NULL,
    refs        text NOT NULL DEFAULT '{}'
);

-- The newest entry committing to each row still present (verification).
CREATE TABLE audit_refs (
    ref text PRIMARY KEY,
    seq bigint NOT NULL REFERENCES audit (seq)
);

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit trail is append-only';
END;
$$;
CREATE TRIGGER audit_no_update BEFORE UPDATE OR DELETE ON audit
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
    FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
