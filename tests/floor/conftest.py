"""The floor service on a real visitor file: a SQLCipher store (or, for one test file,
the PostgreSQL server) with accounts and cards, the real HTTPS server on loopback
with the desk's own casino CA, and a client that trusts that CA and nothing else."""

from __future__ import annotations

import http.client
import json
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.accounts import AccountService, Operator, Role
from admission.cards.code import encode_card_code
from admission.clock import FixedClock
from tests.db.factories import T0, entry
from ui.floor.certs import made_certificate
from ui.floor.http import FloorServer
from ui.floor.limits import Rate
from ui.floor.service import FloorService

CASINO = "CAS1"
PIN = "4821"
PASSWORD = "floor-pass-1"
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
NOW = T0 + timedelta(hours=1)  # the cards of T0 are valid (one day, Madrid)


@dataclass
class Floor:
    """A running floor server over ``store``: its service, its cards and a client."""

    store: Any
    service: FloorService
    server: FloorServer
    clock: FixedClock
    ca: Path
    valid: str  # the code of a valid card
    voided: str  # the code of a voided card
    valid_number: int
    voided_number: int
    skew: list[float]  # seconds added to the monotonic clock the rate limits read
    kept: str = ""  # the session of :meth:`session`

    def session(self) -> dict[str, str]:
        """The cookie header of one floor staff member signed in for the whole test."""
        if not self.kept:
            self.kept = self.sign_in()
        return {"Cookie": self.kept}

    def wait(self, seconds: float) -> None:
        """The rate limits' clock moves on (the buckets fill again)."""
        self.skew[0] += seconds

    def context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPSConnection(
            "127.0.0.1", self.server.port, context=self.context(), timeout=20
        )
        try:
            data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
            sent = {"Content-Type": "application/json", **(headers or {})}
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            conn.close()

    def json(self, method: str, path: str, body: object = None, **kw: Any) -> tuple[int, Any]:
        status, _, data = self.call(method, path, body, **kw)
        return status, json.loads(data)

    def sign_in(self, username: str = "sala1", pin: str = PIN, place: str = "Mesa 3") -> str:
        status, headers, data = self.call(
            "POST", "/api/session", {"username": username, "pin": pin, "place": place}
        )
        assert status == 200, data
        cookie = headers["set-cookie"]
        return cookie.split(";", 1)[0]  # floor_session=...

    def checks(self) -> list[Any]:
        return [e for e in self.store.audit_entries(limit=100000) if e.action == "CARD_CHECK"]


def add_people(store: Any, clock: FixedClock) -> AccountService:
    """An administrator, a floor staff member, an inspector and a clerk, each with a PIN."""
    from db.accounts import Argon2Hasher, StoreAccountBook

    accounts = AccountService(StoreAccountBook(store), Argon2Hasher(**CHEAP), clock)
    admin = accounts.create_account("jefa", "Jefa", "admin-pass-1", [Role.ADMIN], actor=None)
    for name, display, role in (
        ("sala1", "Sala Uno", Role.FLOOR),
        ("ines", "Inés Inspectora", Role.INSPECTOR),
        ("ana", "Ana Recepción", Role.CLERK),
    ):
        accounts.create_account(name, display, PASSWORD, [role], actor=admin.operator())
        accounts.set_pin(Operator(name, display, frozenset({role})), PASSWORD, PIN)
    return accounts


def seed_cards(store: Any, count: int = 2) -> list[int]:
    """``count`` admissions of T0 with one-day cards; the card numbers."""
    numbers = []
    for n in range(1, count + 1):
        recorded = store.record_admission(entry(n, surname="PEÑA NÚÑEZ", given_names="José María"))
        numbers.append(recorded.card_number)
    return numbers


def start_floor(
    store: Any, clock: FixedClock, data_dir: Path, *, check_rate: Rate | None = None
) -> Floor:
    clock.set(T0)
    accounts = add_people(store, clock)
    valid, voided = seed_cards(store)
    store.void_card(voided, "Tarjeta extraviada", "jefa", T0 + timedelta(minutes=5))
    clock.set(NOW)
    skew = [0.0]
    service = FloorService(
        store,
        accounts,
        clock,
        CASINO,
        monotonic=lambda: time.monotonic() + skew[0],
        **({"check_rate": check_rate} if check_rate else {}),
    )
    tls = made_certificate(data_dir, "127.0.0.1", now=datetime.now(tz=NOW.tzinfo))
    server = FloorServer(service, tls, "127.0.0.1", 0).start()
    key = store.secret("card_code")
    return Floor(
        store,
        service,
        server,
        clock,
        data_dir / "floor-tls" / "ca.crt",
        encode_card_code(CASINO, valid, key),
        encode_card_code(CASINO, voided, key),
        valid,
        voided,
        skew,
    )


@pytest.fixture
def floor(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Floor]:
    """The floor over a SQLCipher file; ``@pytest.mark.parametrize("floor", [Rate(...)],
    indirect=True)`` sets the checks' rate limit."""
    from db.keys import DbKey
    from db.store import SqlCipherStore

    clock = FixedClock(T0)
    key = DbKey.generate(source="test")
    with SqlCipherStore.open(tmp_path / "visitors.db", key, clock=clock) as store:
        rate = getattr(request, "param", None)
        running = start_floor(store, clock, tmp_path, check_rate=rate)
        try:
            yield running
        finally:
            running.server.stop()
