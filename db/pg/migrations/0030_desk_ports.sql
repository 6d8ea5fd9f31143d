-- 0030: the desk's other records on the shared server (arts. 154-155): the accounts of
-- the people who work the desk (art. 20.3, 23.5), the provisional vouchers (art. 23.4,
-- R11) and the index of the reprint queue (art. 22). Numbers 0030-0049 belong to these
-- ports (db/pg/accounts.py, db/pg/voucher_book.py, db/pg/reprint_queue.py).
--
-- Sealed values are bytea (db/pg/crypto.py, bound to table, column and row).

-- Desk accounts. The user name is the sign-in name, in clear (it names the operator in
-- the audit trail already); everything else - display name, roles, active, the argon2id
-- hash, the failure count and lock - is ONE sealed record bound to the user name: the
-- server's administrator can neither read a hash to attack it offline nor give an
-- account a role, and a record moved to another user name does not open. Accounts are
-- never deleted, only disabled: the audit trail names them.
CREATE SEQUENCE accounts_account_id_seq;
CREATE TABLE accounts (
    account_id  bigint PRIMARY KEY DEFAULT nextval('accounts_account_id_seq'),
    username    text NOT NULL UNIQUE CHECK (username ~ '^[a-z0-9._-]{1,32}$'),
    record      bytea NOT NULL,
    key_version integer NOT NULL
);

CREATE FUNCTION accounts_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'accounts are disabled, never deleted';
END;
$$;
CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION accounts_never_deleted();
CREATE TRIGGER accounts_no_truncate BEFORE TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_never_deleted();

-- Provisional vouchers (art. 23.4): the deposited document and the price paid, later
-- exchanged for the formal card or cancelled with a reason. The holder's name, the
-- document number and the closing reason are sealed. Numbers come from the 'voucher'
-- counter row (UPDATE ... RETURNING in the issuing transaction): one gapless sequence
-- for every desk, never reused after a purge. card_number is not a foreign key:
-- retention may erase the card before the voucher.
CREATE TABLE vouchers (
    number          bigint PRIMARY KEY CHECK (number >= 1),
    issued_at       timestamptz NOT NULL,
    desk_id         text NOT NULL,
    operator        text NOT NULL,
    holder_name     bytea NOT NULL,
    document_type   text NOT NULL,
    document_number bytea NOT NULL,
    card_type       text NOT NULL,
    price_cents     bigint NOT NULL CHECK (price_cents >= 0),
    status          text NOT NULL CHECK (status IN ('OPEN', 'EXCHANGED', 'CANCELLED')),
    card_number     bigint,
    closed_at       timestamptz,
    close_reason    bytea,
    key_version     integer NOT NULL
);
CREATE INDEX vouchers_open ON vouchers (status, issued_at);
INSERT INTO counters (name, next) VALUES ('voucher', 1) ON CONFLICT (name) DO NOTHING;

-- "Issued, not printed" cards: the reprint queue reads only these few rows.
CREATE INDEX cards_unprinted ON cards (number) WHERE status = 'ISSUED';
