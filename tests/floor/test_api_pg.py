"""The floor service on the casino's PostgreSQL server (arts. 154-155: the server's
desks serve the floor too): sign-in with a PIN, a valid signed card, a voided card with
its reason, a device token, offline checks - over real HTTPS, the same API as on the
SQLCipher file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.clock import FixedClock
from tests.db.factories import T0
from tests.floor.conftest import CASINO, Floor, start_floor


@pytest.fixture
def floor(tmp_path: Path, pg_cluster: Any) -> Iterator[Floor]:
    from tests.pg.cluster_fixture import fresh_schema, open_store

    clock = FixedClock(T0)
    with open_store(pg_cluster, clock, fresh_schema(pg_cluster)) as store:
        running = start_floor(store, clock, tmp_path)
        try:
            yield running
        finally:
            running.server.stop()


def test_the_floor_on_the_server(floor: Floor) -> None:
    from db.card_keys import signed_card_code

    wrong = floor.json("POST", "/api/session", {"username": "sala1", "pin": "0000"})
    assert (wrong[0], wrong[1]["error"]) == (401, "BAD_CREDENTIALS")
    session = floor.session()
    card = floor.store.card(floor.valid_number)
    for code in (floor.valid, signed_card_code(floor.store, CASINO, card)):
        status, out = floor.json("GET", f"/api/cards/{code}?place=Annex", headers=session)
        assert (status, out["answer"]) == (200, "VALID")
        assert out["holder_name"] == "José María PEÑA NÚÑEZ"
        assert "identity" not in out["check"]["holder"]
    status, out = floor.json("GET", f"/api/cards/{floor.voided}", headers=session)
    assert (out["answer"], out["check"]["void_reason"]) == ("VOID", "Tarjeta extraviada")
    token = floor.service.tokens.add("annex-door", "jefa", floor.clock.now())
    status, out = floor.json(
        "GET", f"/api/cards/{floor.valid}", headers={"Authorization": f"Bearer {token}"}
    )
    assert (status, out["answer"]) == (200, "VALID")
    status, voids = floor.json("GET", "/api/voids", headers=session)
    assert status == 200 and f"[{floor.voided_number}]" in voids["body"]
    at = (floor.clock.now() - timedelta(minutes=5)).isoformat()
    offline = {"checks": [{"code": floor.valid, "checked_at": at, "answer": "VALID"}]}
    status, out = floor.json("POST", "/api/offline-checks", offline, headers=session)
    assert (status, out) == (200, {"recorded": 1})
    checks = floor.checks()
    channels = [e.details["channel"] for e in checks]
    assert channels[-1] == "floor-offline" and "floor-token" in channels
    assert [e.actor for e in checks][-1] == "sala1"
    assert not any("PEÑA" in repr(e) or "José" in repr(e) for e in checks)
    assert floor.store.verify().ok
