"""Seven simulated months at the desk on the real encrypted file (art. 20.4: six months kept).

Thousands of admissions through the AdmissionDesk with the real SqlCipherStore and
the real RIAJ replica (re-imported daily, as the casino's sync would), a purge every
night: card numbers stay gapless, nothing older than six months survives, no listed
person or minor is ever admitted, and the raw file never shows a name in clear.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from admission.clock import FixedClock
from admission.documents import document_from_mrz
from admission.generators.demo_people import demo_people
from admission.mrz.parse import parse_mrz
from admission.ports import madrid_date
from admission.retention import retention_cutoff
from admission.verdict import age_on
from db.keys import DbKey
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore
from tests.factories import make_desk

MADRID = ZoneInfo("Europe/Madrid")
START = datetime(2026, 1, 2, 21, 0, tzinfo=MADRID)
DAYS = 214  # seven months


@pytest.mark.slow
def test_seven_months_of_admissions(tmp_path: Path) -> None:
    rng = random.Random(20260102)
    clock = FixedClock(START)
    people = demo_people(900, seed=11, today=START.date(), minors=0.03)
    listed = {p.dni for p in rng.sample(people, 25) if p.dni}
    path = tmp_path / "visitors.db"
    store = SqlCipherStore.open(path, DbKey.generate(), clock=clock)
    replica = ReplicaRegistry(store, clock)
    desk, _, _ = make_desk(store, registry=replica, clock=clock)

    issued: list[int] = []
    admitted_ids: set[str] = set()
    refusals: dict[str, int] = {}
    for day in range(DAYS):
        clock.set(START + timedelta(days=day))
        snapshot = [b"# RIAJ casino scope\n", *(f"{n}\n".encode() for n in sorted(listed))]
        replica.import_lines(snapshot)
        for _ in range(rng.randint(8, 20)):
            person = rng.choice(people)
            clock.advance(timedelta(seconds=rng.randint(20, 300)))
            result = parse_mrz(person.mrz(madrid_date(clock.now())), today=madrid_date(clock.now()))
            assert result.valid, result.errors
            outcome = desk.admit(document_from_mrz(result), operator="clerk")
            for reason in outcome.verdict.codes:
                refusals[reason] = refusals.get(reason, 0) + 1
            if outcome.recorded.card_number is not None:
                assert age_on(person.birth_date, madrid_date(clock.now())) >= 18
                issued.append(outcome.recorded.card_number)
                admitted_ids.add(outcome.evaluation.document.identity.number)
        desk.purge()

    # Gapless, strictly increasing numbers across the whole run.
    assert len(issued) > 2000
    assert issued == list(range(1, len(issued) + 1))
    # Nobody listed and no minor was ever admitted.
    assert not admitted_ids & listed
    assert refusals.get("REGISTRY_LISTED", 0) > 20 and refusals.get("MINOR", 0) > 10
    assert "REGISTRY_UNVERIFIABLE" not in refusals  # the daily import kept the replica fresh
    assert any(age_on(p.birth_date, madrid_date(clock.now())) < 18 for p in people)

    # Nothing older than six months survives the last purge.
    cutoff = retention_cutoff(clock.now())
    conn = store.connection
    with store.lock:
        oldest = conn.execute("SELECT min(at) FROM visits").fetchone()[0]
        remaining = [r[0] for r in conn.execute("SELECT number FROM cards ORDER BY number")]
    assert oldest is not None
    assert datetime.fromisoformat(oldest) >= cutoff
    # The surviving cards are the most recent contiguous run of numbers.
    assert remaining == list(range(remaining[0], len(issued) + 1))
    assert store.verify().ok
    store.close()

    raw = path.read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("visitors.db-*") if p.is_file()
    )
    for person in people[:200]:
        for needle in (person.surname, person.surname.split()[0], person.dni or person.passport):
            if len(needle) >= 5:
                assert needle.encode() not in raw and needle.encode("latin-1", "ignore") not in raw


def test_a_restart_keeps_the_sequence(tmp_path: Path) -> None:
    key = DbKey.generate()
    clock = FixedClock(START)
    people = demo_people(5, seed=3, today=date(2026, 1, 2))
    numbers = []
    for _ in range(3):
        store = SqlCipherStore.open(tmp_path / "v.db", key, clock=clock)
        replica = ReplicaRegistry(store, clock)
        replica.import_lines([b"00000000T\n"])
        desk, _, _ = make_desk(store, registry=replica, clock=clock)
        for person in people:
            doc = document_from_mrz(parse_mrz(person.mrz(date(2026, 1, 2)), today=date(2026, 1, 2)))
            numbers.append(desk.admit(doc, operator="c").recorded.card_number)
        store.close()
        # the next evening: yesterday's day cards are no longer valid (one valid card
        # per person, art. 22)
        clock.advance(timedelta(days=1))
    assert numbers == list(range(1, 16))
