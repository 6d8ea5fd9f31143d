"""The visitor file's ports (admission/ports.py), written once for both stores: each runs
a rule of db/cards.py, db/visitors.py... in one transaction of the store's dialect
(db/tx.py); ``SqlCipherStore`` and ``PgStore`` add how they open, lock, retry and seal."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from functools import partial
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from admission.cards.signed import CardKey, CardPublicKeys
from admission.records import AdmissionEntry, CardRecord, RecordedAdmission
from db import (
    card_keys,
    cards,
    chain,
    data_protection,
    inspection,
    people,
    reports,
    retention,
    visitors,
)

T = TypeVar("T")
P = ParamSpec("P")
# the reprint queue, read by the partial index ``cards_unprinted``
_UNPRINTED = (
    f"SELECT {cards.CARD_COLUMNS} FROM cards AS t WHERE t.status = 'ISSUED' "
    "ORDER BY t.number DESC LIMIT ?"
)


def _reads(
    rule: Callable[Concatenate[Any, P], T], run: str = "read"
) -> Callable[Concatenate[FilePorts, P], T]:
    """The port running ``rule`` in one ``run`` (read or write) transaction of the dialect."""

    def port(self: FilePorts, /, *args: P.args, **kwargs: P.kwargs) -> T:
        transaction: Callable[[Callable[[Any], T]], T] = getattr(self, run)
        return transaction(lambda tx: rule(tx, *args, **kwargs))

    port.__doc__ = rule.__doc__
    return port


_writes = partial(_reads, run="write")


class FilePorts:
    """The ports over :meth:`read` and :meth:`write`, which each store provides."""

    dialect: str  # of its transactions (db/tx.py)

    def read(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        raise NotImplementedError

    def write(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        raise NotImplementedError

    def bulk_write(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        """``work`` in one write transaction of a bulk load (the register's swap)."""
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - each store's own
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- AuditTrail (art. 20.4; db/chain.py) and the file's settings -------------------------
    # verify() is each store's: the snapshot it reads in and where its key comes from

    # one entry in its own transaction; its ``seq``
    append = _writes(chain.Chained.audit)
    head = _reads(chain.head)
    audit_entries = _reads(chain.entries)
    secret = _writes(chain.secret_in)

    def keyed_hash(self, text: str) -> str:
        """``hmac:`` + 16 hex under the file's subject secret (db/chain.py)."""
        return chain.keyed_hash(self.secret(chain.SUBJECT_SECRET), text)

    get_setting = _reads(chain.get_setting)
    set_setting = _writes(chain.set_setting)

    # -- VisitorFile (art. 20.3, R2) ---------------------------------------------------------

    find_visitor = _reads(visitors.find)
    desk_facts = _reads(visitors.desk_facts)
    visitor = _reads(visitors.by_number)
    search_visitors = _reads(visitors.search)
    visits = _reads(visitors.visits)
    observations = _reads(visitors.observations)
    # A free-text observation (art. 20.3), audited with its row.
    add_observation = _writes(visitors.add_observation)

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        """The visitor, the visit and its card in ONE transaction (art. 22.1), one valid
        card per person (art. 22): db/visitors.py."""
        return self.write(lambda tx: visitors.record_admission(tx, entry))

    # -- CardBook (art. 22) ------------------------------------------------------------------

    # The newest card of this identity, not voided, valid on Madrid date ``on_day`` or on
    # a day from ``since`` (the session's first day) to it (art. 22).
    open_card = _reads(cards.open_card)
    card = _reads(cards.card)
    card_events = _reads(cards.card_events)
    last_card_number = _reads(cards.last_card_number)
    mark_printed = _writes(cards.mark_printed)

    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]:
        """Cards issued but never printed (art. 22), of the desk's file or of every desk on
        the server (arts. 154-155), newest first; a negative ``limit`` is none."""
        rows = self.read(lambda tx: tx.all(_UNPRINTED, (None if limit < 0 else limit,)))
        return [cards.card_from_row(row) for row in rows]

    # -- the card-signing keys (art. 22.4: a card checked anywhere; db/card_keys.py) -------

    def card_public_keys(self) -> CardPublicKeys:
        """What an ADM2 check needs (public keys, holder secret, signature check)."""
        return card_keys.public_keys(self)

    def signed_card_code(self, casino_id: str, card: CardRecord) -> str:
        """The ADM2 text printed in ``card``'s QR, signed with the current key."""
        return card_keys.signed_card_code(self, casino_id, card)

    def card_signing_keys(self) -> list[CardKey]:
        """Every card-signing key, newest first (the first made on first use)."""
        return card_keys.card_keys(self)

    def rotate_card_key(self, actor: str, at: datetime) -> CardKey:
        """The next card-signing key made current, audited (``CARD_KEY_ROTATED``)."""
        return card_keys.rotate_card_key(self, actor, at)

    def sign_with_card_key(self, data: bytes) -> tuple[str, bytes]:
        """``data`` signed with the current card-signing key: (key id, signature)."""
        return card_keys.sign_bytes(self, data)

    def voided_cards(self) -> list[tuple[int, date]]:
        """(number, Madrid date it was voided) of the voided cards, ascending."""
        return card_keys.voided_cards(self)

    void_card = _writes(cards.void_card)
    # A reprint of the same number is requested (print_count grows on mark_printed).
    record_reprint = _writes(cards.record_reprint)

    # -- BanList (art. 21.2-3), StaffList (art. 18), PeopleListings --------------------------

    bans = _reads(people.bans)
    active_bans = _reads(people.active_bans)
    # Bans neither lifted nor expired at ``at`` / lifted or expired by it, newest first.
    # Personal data: the caller audits the reading (art. 20.4).
    bans_in_force = _reads(people.bans_in_force)
    bans_ended = _reads(people.bans_ended)

    add_ban = _writes(people.add_ban)
    lift_ban = _writes(people.lift_ban)

    staff_member = _reads(people.staff_member)
    staff_members = _reads(people.staff_members)
    add_staff = _writes(people.add_staff)

    # -- the reports, data protection and retention (arts. 14.1.b, 20.4; GDPR) -------------

    day_book_lines = _reads(reports.day_book_lines)
    figure_counts = _reads(reports.figure_counts)
    # Everything held about one person (GDPR art. 15), None when no such file.
    access_report_data = _reads(reports.access_report)
    rectify_visitor_name = _writes(data_protection.rectify_visitor_name)
    rectify_observation_text = _writes(data_protection.rectify_observation_text)
    retention_totals = _reads(data_protection.retention_totals)
    retention_months = _reads(data_protection.retention_months)
    newest_event = _reads(retention.newest_event)
    # The gaming inspectors' search (art. 20.4), read only: see db/inspection.py.
    inspect_visitors = _reads(inspection.inspect_visitors)
