-- 0020: provisional vouchers (volantes provisionales, art. 23.4, R11) and the reprint
-- queue index (issue 6). Numbers 0020-0029 belong to printing (db/print_queue.py).
--
-- A voucher records the document deposited at the desk and the price paid; it is
-- exchanged later for the formal card (card_number) or cancelled with a reason.
-- Voucher numbers are their own gapless sequence (MAX + 1 inside BEGIN IMMEDIATE).
-- card_number is not a foreign key: retention may erase the card before the voucher.

CREATE TABLE vouchers (
    number          INTEGER PRIMARY KEY,
    issued_at       TEXT NOT NULL,
    desk_id         TEXT NOT NULL,
    operator        TEXT NOT NULL,
    holder_name     TEXT NOT NULL,
    document_type   TEXT NOT NULL,
    document_number TEXT NOT NULL,
    card_type       TEXT NOT NULL,
    price_cents     INTEGER NOT NULL CHECK (price_cents >= 0),
    status          TEXT NOT NULL CHECK (status IN ('OPEN', 'EXCHANGED', 'CANCELLED')),
    card_number     INTEGER,
    closed_at       TEXT,
    close_reason    TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX vouchers_open ON vouchers (status, issued_at);

-- "Issued, not printed" cards: the reprint queue reads only these few rows.
CREATE INDEX cards_unprinted ON cards (number) WHERE status = 'ISSUED';
