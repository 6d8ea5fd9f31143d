"""The replica in the encrypted store: atomic swap, change feed, checks (art. 20.2)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.identity import IdentityKey, IdKind
from admission.registry.port import RegistrySource, RegistryStatus
from admission.registry.snapshot import FeedPage, SnapshotError, feed_entry, render_snapshot
from db.registry_replica import ReplicaRegistry
from tests.registry.conftest import T0, open_store

SALT = b"s" * 16


def dni(number: str) -> IdentityKey:
    return IdentityKey.of(IdKind.DNI, "ESP", number)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def snapshot(numbers: list[str], version: str = "v1", hours: int = 0) -> bytes:
    return render_snapshot(numbers, version=version, as_of=T0 + timedelta(hours=hours), salt=SALT)


def test_empty_replica_is_unverifiable(replica: ReplicaRegistry) -> None:
    answer = replica.check(dni("12345678Z"))
    assert answer.status is RegistryStatus.UNVERIFIABLE and answer.error == "REPLICA_EMPTY"
    assert answer.source is RegistrySource.REPLICA


def test_plain_list_import_and_check(
    replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path
) -> None:
    path = write(tmp_path, "riaj.txt", b"# lista\n12345678Z\nX-1234567-L\n")
    result = replica.import_file(path)
    assert result.entries == 2 and result.as_of == T0 and not result.unchanged
    clock.advance(timedelta(minutes=10))
    listed = replica.check(dni("12345678z"))
    assert listed.status is RegistryStatus.LISTED
    assert listed.age_seconds == 600 and listed.version == result.version
    assert replica.check(IdentityKey.of("NIE", "ESP", "X1234567L")).status is RegistryStatus.LISTED
    assert replica.check(dni("00000000T")).status is RegistryStatus.NOT_LISTED


def test_a_bad_file_leaves_the_previous_snapshot_in_force(
    replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path
) -> None:
    clock.advance(timedelta(hours=1))
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    bad = snapshot(["99999999R", "11111111H"], "v2", hours=1)
    for name, data in [
        ("trunc", bad[:-30]),
        ("long", b"1\n" + b"1" * 5000),
        ("junk", b"#RIAJ-SNAPSHOT 1\n"),
    ]:
        with pytest.raises(SnapshotError):
            replica.import_file(write(tmp_path, name, data))
    with pytest.raises(SnapshotError) as err:
        replica.import_file(tmp_path / "missing")
    assert err.value.code == "SNAPSHOT_UNREADABLE"
    state = replica.state()
    assert state is not None and state.version == "v1" and state.entries == 1
    assert replica.check(dni("12345678Z")).status is RegistryStatus.LISTED
    assert replica.check(dni("99999999R")).status is RegistryStatus.NOT_LISTED
    codes = [e[2] for e in replica.last_events(10)]
    assert "SNAPSHOT_TRUNCATED" in codes and "SNAPSHOT_UNREADABLE" in codes


def test_swap_replaces_everything_and_rejects_older_or_conflicting(
    replica: ReplicaRegistry, conn: sqlite3.Connection, clock: FixedClock, tmp_path: Path
) -> None:
    clock.advance(timedelta(hours=3))
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"], "v1")))
    result = replica.import_file(write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=2)))
    assert result.replaced == "v1"
    assert replica.check(dni("12345678Z")).status is RegistryStatus.NOT_LISTED
    assert replica.check(dni("99999999R")).status is RegistryStatus.LISTED
    assert conn.execute("SELECT count(*) FROM registry_entry").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM registry_snapshot").fetchone()[0] == 1
    again = replica.import_file(write(tmp_path, "b2", snapshot(["99999999R"], "v2", hours=2)))
    assert again.unchanged
    for data, code in [
        (snapshot(["11111111H"], "v0", hours=1), "SNAPSHOT_OLDER_THAN_ACTIVE"),
        (snapshot(["11111111H"], "v2", hours=3), "SNAPSHOT_VERSION_CONFLICT"),
        (snapshot(["11111111H"], "v9", hours=48), "SNAPSHOT_FROM_THE_FUTURE"),
    ]:
        with pytest.raises(SnapshotError) as err:
            replica.import_file(write(tmp_path, "c", data))
        assert err.value.code == code


def test_failure_inside_the_swap_transaction_rolls_back(
    replica: ReplicaRegistry, conn: sqlite3.Connection, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"], "v1")))
    conn.execute(
        "CREATE TRIGGER boom BEFORE UPDATE OF active ON registry_snapshot "
        "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    with pytest.raises(SnapshotError) as err:
        replica.import_file(write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=1)))
    assert err.value.code == "REPLICA_WRITE_FAILED"
    conn.execute("DROP TRIGGER boom")
    assert replica.check(dni("12345678Z")).status is RegistryStatus.LISTED
    assert replica.check(dni("99999999R")).status is RegistryStatus.NOT_LISTED


def test_change_feed_is_idempotent_and_moves_the_age(
    replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z", "11111111H"])))
    since = replica.feed_since()
    assert since == T0
    page = FeedPage(
        since,
        T0 + timedelta(hours=4),
        (
            feed_entry("A", "99999999R", T0 + timedelta(hours=1)),
            feed_entry("B", "11111111H", T0 + timedelta(hours=2)),
            feed_entry("A", "22222222J", T0 + timedelta(hours=3)),
            feed_entry("B", "22222222J", T0 + timedelta(hours=3)),
        ),
    )
    first = replica.apply_feed(page)
    assert (first.added, first.removed) == (2, 2)
    second = replica.apply_feed(page)  # the same page again: same final state
    assert (second.added, second.removed, second.unchanged) == (1, 1, 2)
    clock.set(T0 + timedelta(hours=5))
    answer = replica.check(dni("99999999R"))
    assert answer.status is RegistryStatus.LISTED and answer.age_seconds == 3600
    assert "@" in answer.version
    assert replica.check(dni("11111111H")).status is RegistryStatus.NOT_LISTED
    assert replica.check(dni("22222222J")).status is RegistryStatus.NOT_LISTED
    state = replica.state()
    assert state is not None and state.entries == 2 and replica.feed_since() == page.as_of


def test_feed_gaps_and_stale_pages_are_rejected(replica: ReplicaRegistry, tmp_path: Path) -> None:
    with pytest.raises(SnapshotError) as err:
        replica.apply_feed(FeedPage(None, T0, ()))
    assert err.value.code == "FEED_WITHOUT_SNAPSHOT"
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    later = T0 + timedelta(hours=2)
    with pytest.raises(SnapshotError) as err:
        replica.apply_feed(FeedPage(later, later, ()))
    assert err.value.code == "FEED_GAP"
    replica.apply_feed(FeedPage(T0, later, ()))
    with pytest.raises(SnapshotError) as err:
        replica.apply_feed(
            FeedPage(
                T0,
                T0 + timedelta(hours=1),
                (feed_entry("B", "12345678Z", T0 + timedelta(hours=1)),),
            )
        )
    assert err.value.code == "FEED_OUT_OF_ORDER"
    assert replica.check(dni("12345678Z")).status is RegistryStatus.LISTED


def test_feed_resumes_after_an_interrupted_apply(
    replica: ReplicaRegistry, conn: sqlite3.Connection, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    page = FeedPage(
        T0,
        T0 + timedelta(hours=2),
        (
            feed_entry("A", "99999999R", T0 + timedelta(hours=1)),
            feed_entry("A", "11111111H", T0 + timedelta(hours=1)),
        ),
    )
    conn.execute(
        "CREATE TRIGGER boom BEFORE UPDATE OF feed_as_of ON registry_snapshot "
        "BEGIN SELECT RAISE(ABORT, 'killed'); END"
    )
    with pytest.raises(SnapshotError):
        replica.apply_feed(page)
    assert replica.check(dni("99999999R")).status is RegistryStatus.NOT_LISTED  # all or nothing
    assert replica.feed_since() == T0
    conn.execute("DROP TRIGGER boom")
    replica.apply_feed(page)
    assert replica.check(dni("11111111H")).status is RegistryStatus.LISTED


def test_a_second_connection_sees_a_new_snapshot(tmp_path: Path, clock: FixedClock) -> None:
    path = tmp_path / "shared.db"
    with open_store(path, clock) as desk_file, open_store(path, clock) as cli_file:
        desk = ReplicaRegistry(desk_file, clock)
        cli = ReplicaRegistry(cli_file, clock)
        cli.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
        assert desk.check(dni("12345678Z")).status is RegistryStatus.LISTED
        cli.import_file(write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=1)))
        assert desk.check(dni("12345678Z")).status is RegistryStatus.NOT_LISTED


def test_the_database_file_holds_no_identifier_in_clear(tmp_path: Path, clock: FixedClock) -> None:
    path = tmp_path / "v.db"
    with open_store(path, clock) as store:
        ReplicaRegistry(store, clock).import_file(write(tmp_path, "a", b"12345678Z\n"))
        store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = path.read_bytes()
    assert b"12345678Z" not in raw and b"SQLite format 3" not in raw


def test_full_migration_chain_creates_the_registry_tables() -> None:
    from db.migrate import migrate

    c = sqlite3.connect(":memory:", isolation_level=None)
    migrate(c)
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"registry_snapshot", "registry_entry", "registry_event"} <= names
