-- 0040: the accounts of the people who work the desk (art. 20.3: the game director
-- answers for the admission service; art. 23.5: the director's exceptional card under
-- named responsibility). Numbers 0040-0049 belong to accounts (db/accounts.py).
--
-- password_hash is an argon2id PHC string, never the password. Accounts are never
-- deleted, only disabled: the audit trail names them. Every write of a row is audited
-- in the same transaction, and the keyed chain commits to the row (kind "account").

CREATE TABLE accounts (
    account_id      INTEGER PRIMARY KEY,
    username        TEXT NOT NULL UNIQUE CHECK (length(username) BETWEEN 1 AND 32),
    display_name    TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 80),
    roles           TEXT NOT NULL,      -- sorted, comma-separated role codes
    active          INTEGER NOT NULL CHECK (active IN (0, 1)),
    password_hash   TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    locked_until    TEXT,
    created_at      TEXT NOT NULL
) STRICT;

CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts
BEGIN
    SELECT RAISE(ABORT, 'accounts are disabled, never deleted');
END;
