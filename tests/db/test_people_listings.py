"""The director's listings beyond one person (``admission.ports.PeopleListings``): the
staff (art. 18, R15) and the bans in force (art. 21.2-3, R5), alike on every store (the
encrypted file, the fake, the server: names sealed there, sorted by the desk) and read
back from the file."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from admission.clock import FixedClock
from admission.ports import PeopleListings
from admission.records import StaffMember, StaffRole
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import T0, dni


def _seed(store: Any) -> dict[str, int]:
    hour = timedelta(hours=1)
    ids = {
        "open": store.add_ban(dni(1), "altercado", "dir", T0 - hour).ban_id,
        "expiring": store.add_ban(dni(2), "impago", "dir", T0 - hour, T0 + hour).ban_id,
        "expired": store.add_ban(dni(3), "antiguo", "dir", T0 - 3 * hour, T0 - hour).ban_id,
        "lifted": store.add_ban(dni(4), "error", "dir", T0 - 2 * hour).ban_id,
        "future": store.add_ban(dni(5), "mañana", "dir", T0 + hour).ban_id,
    }
    store.lift_ban(ids["lifted"], "revisado", "dir", T0 - hour)
    store.add_staff(StaffMember(dni(7), "Zoe Zamora", StaffRole.STAFF, True), "adm", T0)
    store.add_staff(StaffMember(dni(8), "Ana Álvarez", StaffRole.DIRECTOR, True), "adm", T0)
    store.add_staff(StaffMember(dni(9), "Bea Blanco", StaffRole.STAFF, False), "adm", T0)
    return ids


def _check(store: PeopleListings, ids: dict[str, int]) -> None:
    in_force = store.bans_in_force(T0)
    assert [b.ban_id for b in in_force] == [ids["expiring"], ids["open"]]  # newest first
    assert all(b.active_at(T0) for b in in_force)
    later = store.bans_in_force(T0 + timedelta(hours=2))  # the expiring one has ended
    assert [b.ban_id for b in later] == [ids["future"], ids["open"]]
    assert len(store.bans_in_force(T0, limit=1)) == 1
    staff = store.staff_members()
    assert [m.name for m in staff] == ["Ana Álvarez", "Bea Blanco", "Zoe Zamora"]
    assert [m.active for m in staff] == [True, False, True]
    assert staff[0].role is StaffRole.DIRECTOR and staff[0].identity == dni(8)
    assert len(store.staff_members(limit=2)) == 2


def test_the_real_file_lists_staff_and_bans_in_force(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    key = DbKey.generate(source="test")
    with SqlCipherStore.open(path, key, clock=FixedClock(T0)) as store:
        ids = _seed(store)
        _check(store, ids)
    with SqlCipherStore.open(path, key, clock=FixedClock(T0)) as reopened:
        _check(reopened, ids)  # read back from the file, not from memory


def test_every_store_lists_alike(any_store: Any) -> None:
    _check(any_store, _seed(any_store))
