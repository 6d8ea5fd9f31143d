"""The desk's real floor service (ui/floor: FloorService and FloorServer) on a SQLCipher
visitor file with the real clock, for the phone page's browser tests and its benchmark:
cards issued today, ADM2 and ADM1 codes for them, the audit trail's card checks, and a
server that stops and starts again on the same port (the LAN going down and back)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from admission.cards.code import encode_card_code
from tests.floor.browser import make_tls


@dataclass
class Card:
    number: int
    card_type: str
    valid_from: date
    valid_until: date
    holder_name: str
    void_reason: str = ""


class RealFloor:
    """``python main.py floor serve`` as the tests of tests/floor/conftest.py build it
    (FloorService + FloorServer, the desk's own casino CA), on a SQLCipher file whose
    clock is the real one, so the cards issued today are valid in the browser's today
    too. ``stop()`` closes the server (the phone meets a refused connection); ``start()``
    opens it again on the same port, with the same service and its sessions."""

    def __init__(self, folder: Path) -> None:
        from admission.clock import SystemClock
        from db.keys import DbKey
        from db.store import SqlCipherStore
        from tests.floor.conftest import CASINO as REAL_CASINO
        from tests.floor.conftest import add_people
        from ui.floor.service import FloorService

        self.folder = folder
        self.casino = REAL_CASINO
        self.clock = SystemClock()
        self.store = SqlCipherStore.open(
            folder / "visitors.db", DbKey.generate(source="test"), clock=self.clock
        )
        accounts = add_people(self.store, self.clock)
        self.service = FloorService(
            self.store,
            accounts,
            self.clock,
            self.casino,
            card_types={"STANDARD": ("Entrada general", "General entry")},  # R10's labels
        )
        self.tls = make_tls(folder)
        self.port = 0
        self._server: Any = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> None:
        from ui.floor.certs import made_certificate
        from ui.floor.http import FloorServer

        certificate = made_certificate(self.folder, "127.0.0.1")  # the one make_tls made
        self._server = FloorServer(self.service, certificate, "127.0.0.1", self.port).start()
        self.port = self._server.port

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def close(self) -> None:
        self.stop()
        self.store.close()

    def add(self, card: Card, n: int) -> Card:
        """Visitor ``n`` admitted now with ``card`` (its number is the file's); voided
        with ``card.void_reason`` when it has one."""
        from admission.records import NewCard
        from tests.db.factories import entry

        given, _, surname = card.holder_name.partition(" ")
        new = NewCard(card.card_type, 500, card.valid_from, card.valid_until)
        recorded = self.store.record_admission(
            entry(n, datetime.now(UTC), surname=surname, given_names=given, card=new)
        )
        if card.void_reason:
            self.store.void_card(recorded.card_number, card.void_reason, "jefa", datetime.now(UTC))
        return replace(card, number=recorded.card_number)

    def code(self, card: Card) -> str:
        from db.card_keys import signed_card_code

        record = self.store.card(card.number)
        assert record is not None
        return str(signed_card_code(self.store, self.casino, record))

    def adm1(self, card: Card) -> str:
        return encode_card_code(self.casino, card.number, self.store.secret("card_code"))

    def checks(self, channel: str) -> list[dict[str, Any]]:
        """The audit trail's card checks of ``channel`` (floor, floor-offline), oldest first."""
        entries = [e for e in self.store.audit_entries(limit=100000) if e.action == "CARD_CHECK"]
        return [dict(e.details) for e in entries if e.details.get("channel") == channel]
