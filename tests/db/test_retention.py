"""Six-month retention (art. 20.4, R3): what is erased, what is kept, and that erased
names leave no bytes behind (secure_delete, proven on the unencrypted variant)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

from admission.clock import FixedClock
from admission.retention import retention_cutoff
from db.keys import DbKey
from db.store import SqlCipherStore
from db.tx import when
from tests.db.factories import T0, card_for, dni, entry
from tests.db.plain_store import open_plain

DAY = timedelta(days=1)
CUT = T0 + 30 * DAY  # purges below use this cutoff


def test_old_visits_go_and_visitors_with_nothing_left_go_with_them(any_store: Any) -> None:
    any_store.record_admission(entry(1, T0))  # only old visits: erased
    any_store.record_admission(entry(1, T0 + DAY))
    any_store.add_observation(1, "old note", "op", T0)
    any_store.record_admission(entry(2, T0))  # old + recent visit: kept
    any_store.record_admission(entry(2, CUT + DAY))
    any_store.add_observation(2, "old", "op", T0)
    any_store.add_observation(2, "new", "op", CUT + DAY)
    report = any_store.purge(CUT)
    assert (report.visits, report.visitors, report.observations, report.cards) == (3, 1, 2, 3)
    assert any_store.find_visitor(dni(1)) is None and any_store.search_visitors("pena") != []
    kept = any_store.find_visitor(dni(2))
    assert [v.at for v in any_store.visits(kept.file_number)] == [CUT + DAY]
    assert kept.first_seen == CUT + DAY  # no date of an erased visit survives
    assert [o.text for o in any_store.observations(kept.file_number)] == ["new"]
    assert any_store.card(1) is None and any_store.card(4).visit_id != 0
    # The sequence goes on: numbers are never reused after an erasure.
    assert any_store.record_admission(entry(3, CUT + 2 * DAY)).card_number == 5
    last = [e for e in any_store.audit_entries() if e.action == "PURGE"][-1]
    assert (last.action, last.details["visits"], last.details["visitors"]) == ("PURGE", "3", "1")


def test_an_active_ban_or_an_open_card_keeps_the_visitor(any_store: Any) -> None:
    any_store.record_admission(entry(1, T0))
    any_store.add_ban(dni(1), "disturbance", "director-1", T0)
    long_card = card_for(T0, days=90)  # multi-day card (R10)
    long = any_store.record_admission(entry(2, T0, card=long_card)).card_number
    voided = any_store.record_admission(entry(3, T0, card=card_for(T0, days=90))).card_number
    any_store.void_card(voided, "lost", "sup", T0)
    report = any_store.purge(CUT)
    assert (report.visits, report.visitors, report.cards) == (3, 1, 2)
    assert any_store.find_visitor(dni(1)) is not None  # banned: kept
    assert any_store.visits(1) == []
    card = any_store.card(long)
    assert card is not None and card.visit_id == 0  # still valid, visit erased
    assert any_store.find_visitor(dni(2)) is not None
    assert any_store.find_visitor(dni(3)) is None  # voided card opens nothing
    # Later: the ban is lifted and the card's validity ends -> both visitors go.
    any_store.lift_ban(1, "appeal", "director-1", CUT + DAY)
    report = any_store.purge(T0 + 120 * DAY)
    assert (report.visits, report.visitors, report.cards) == (0, 2, 1)
    assert any_store.find_visitor(dni(1)) is None and any_store.card(long) is None


def test_expired_ban_no_longer_keeps_the_visitor(any_store: Any) -> None:
    any_store.record_admission(entry(1, T0))
    any_store.add_ban(dni(1), "symbols", "director-1", T0, expires_at=T0 + 40 * DAY)
    assert any_store.purge(CUT).visitors == 0
    assert any_store.purge(T0 + 41 * DAY).visitors == 1


def _file_bytes(path: Path) -> bytes:
    """The database file and any sidecar left beside it."""
    data = path.read_bytes()
    for suffix in ("-wal", "-journal"):
        sidecar = path.with_name(path.name + suffix)
        if sidecar.exists():
            data += sidecar.read_bytes()
    return data


def _fill_and_purge(store: SqlCipherStore, name: str) -> None:
    for n in range(1, 400):  # enough rows for several pages and an index split
        store.record_admission(entry(n, T0, surname=f"{name}{n:03d}", given_names="Zoë"))
    store.record_admission(entry(1000, CUT + DAY, surname="Keeper", given_names="Ana"))
    store.add_observation(1, f"nota sobre {name}", "op", T0)
    store.checkpoint()
    report = store.purge(CUT)
    assert report.visitors == 399


def test_purged_names_leave_no_bytes_on_plain_sqlite(tmp_path: Path) -> None:
    """Without encryption every byte is readable: this proves secure_delete wipes the
    rows, their index entries and free pages, not only that encryption hides them."""
    path = tmp_path / "plain.db"
    name = "Wipeme"
    with open_plain(path) as store:
        for n in range(1, 400):
            store.record_admission(entry(n, T0, surname=f"{name}{n:03d}", given_names="Zoë"))
        store.checkpoint()
    assert name.encode() in path.read_bytes()  # the test can see a name when it is there
    with open_plain(path) as store:
        store.record_admission(entry(1000, CUT + DAY, surname="Keeper", given_names="Ana"))
        store.add_observation(1, f"nota sobre {name}", "op", T0)
        store.purge(CUT)
    raw = _file_bytes(path)
    assert b"Keeper" in raw
    for needle in (name, name.upper(), "SUP000001", dni(1).number, "Zoë", "ZOE"):
        assert needle.encode("utf-8") not in raw, needle


def test_without_secure_delete_the_names_would_linger(tmp_path: Path) -> None:
    """Control for the test above: the same deletes with secure_delete off leave names."""
    path = tmp_path / "control.db"
    with open_plain(path) as store:
        for n in range(1, 400):
            store.record_admission(entry(n, T0, surname=f"Wipeme{n:03d}", card=False))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA secure_delete = OFF")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DELETE FROM visits")
    conn.execute("DELETE FROM visitors")
    conn.close()
    assert b"Wipeme" in path.read_bytes()


def test_purged_names_absent_from_encrypted_file(tmp_path: Path, key: DbKey) -> None:
    path = tmp_path / "visitors.db"
    with SqlCipherStore.open(path, key, clock=FixedClock(CUT + DAY)) as store:
        _fill_and_purge(store, "Wipeme")
    raw = _file_bytes(path)
    assert b"Wipeme" not in raw and b"Keeper" not in raw  # encrypted: nothing in clear
    with SqlCipherStore.open(path, key) as store:
        assert store.search_visitors("wipeme") == []
        assert [v.surname for v in store.search_visitors("keeper")] == ["Keeper"]


def test_nothing_older_than_the_cutoff_survives_seven_months(any_store: Any) -> None:
    at = T0
    n = 0
    while at < T0 + 210 * DAY:
        n += 1
        any_store.record_admission(entry(n % 150, at, surname=f"S{n % 150}"))
        if n % 7 == 0:
            any_store.add_observation(n % 150, "note", "op", at)
        at += timedelta(hours=9)
    now = at
    cutoff = retention_cutoff(now)
    any_store.purge(cutoff)

    def left(tx: Any) -> tuple[Any, ...]:
        old = tx.one("SELECT count(*) FROM visits WHERE at < ?", (tx.ts(cutoff),))[0]
        first_visit = tx.one("SELECT min(at) FROM visits")[0]
        first_note = tx.one("SELECT min(at) FROM observations")[0]
        files = [r[0] for r in tx.all("SELECT file_number FROM visitors")]
        numbers = [r[0] for r in tx.all("SELECT number FROM cards ORDER BY number")]
        return old, when(first_visit), when(first_note), files, numbers

    old, first_visit, first_note, files, numbers = any_store.read(left)
    assert old == 0
    assert first_visit >= cutoff and first_note >= cutoff
    for file_number in files:
        visitor = any_store.visitor(file_number)
        assert visitor is not None and visitor.first_seen >= cutoff
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # contiguous tail
    assert any_store.verify().ok


def test_a_purge_keeps_the_chain_whole(any_store: Any, clock: FixedClock) -> None:
    clock.advance(200 * DAY)
    at = T0
    for n in range(1, 60):
        card = card_for(at, days=90) if n % 7 == 0 else True
        done = any_store.record_admission(entry(n % 20 + 1, at, surname=f"S{n % 20}", card=card))
        if n % 5 == 0:
            any_store.add_observation(done.file_number, "nota", "op", at)
        at += timedelta(hours=20)
    any_store.add_ban(dni(1), "conducta", "director", T0, T0 + 10 * DAY)
    number = any_store.record_admission(entry(30, T0)).card_number
    any_store.void_card(number, "perdida", "sup", T0)
    first = any_store.purge(T0 + 20 * DAY)
    assert first.visits > 0 and first.purged_cards
    check = any_store.verify()
    assert check.ok, check
    second = any_store.purge(T0 + 200 * DAY)
    assert second.visitors > 0
    check = any_store.verify()
    assert check.ok, check
    assert any_store.newest_event() == T0 + 200 * DAY  # the purge's own entry
    assert any_store.record_admission(entry(99, T0 + 201 * DAY)).card_number == (
        any_store.last_card_number()
    )


def test_bans_that_ended_more_than_six_months_ago_are_erased(any_store: Any) -> None:
    ended, live = dni(1), dni(2)
    any_store.add_ban(ended, "conducta", "director", T0, T0 + timedelta(days=10))
    any_store.add_ban(live, "conducta", "director", T0)
    lifted = any_store.add_ban(dni(3), "conducta", "director", T0)
    any_store.lift_ban(lifted.ban_id, "revisado", "director", T0 + timedelta(days=1))
    any_store.purge(T0 + timedelta(days=5))  # the cutoff (now - 6 months) is before the end
    assert len(any_store.bans(ended)) == 1
    any_store.purge(T0 + timedelta(days=20))
    assert list(any_store.bans(ended)) == [] and list(any_store.bans(dni(3))) == []
    assert len(any_store.bans(live)) == 1


def test_the_report_names_exactly_the_cards_it_erased(any_store: Any) -> None:
    """The card PDFs beside the file go by this list (admission/retention_sweep.py)."""
    any_store.record_admission(entry(1, T0))  # card 1: visit and visitor erased
    any_store.record_admission(entry(2, T0, card=card_for(T0, days=90)))  # 2: still valid, kept
    voided = any_store.record_admission(entry(3, T0, card=card_for(T0, days=90))).card_number
    assert voided == 3
    any_store.void_card(voided, "lost", "sup", T0)  # 3: voided, erased
    any_store.record_admission(entry(4, CUT + DAY))  # 4: recent, kept
    report = any_store.purge(CUT)
    assert report.purged_cards == (1, 3) and report.cards == 2
    assert [n for n in range(1, 5) if any_store.card(n) is not None] == [2, 4]
    later = any_store.purge(T0 + 120 * DAY)  # both visits now old, card 2's validity ended
    assert later.purged_cards == (2, 4)
