"""The recovery drill (PostgreSQL 15 docs, section 26.3): a base backup of the casino's
server and its archived WAL, restored to a chosen instant on a new server, as the
operator runs it. The desks then refuse to write (``PG_FILE_WENT_BACK``: the cards issued
after that instant exist on paper, art. 22.1) and say how far the file went back, read
and verify the chain against a head kept from before the instant, and write again once
``server confirm-restore`` is recorded; a desk whose last entry the restore lost accepts
it from that entry. A normal restart of the server trips nothing.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest

from admission.errors import ConfigError, StoreError
from admission.records import AuditHead
from db import accounts, codec
from db.pg.rewound import AUDIT_HEAD_FILE, RewoundCode, remember_head, remembered_head
from tests.pg.cluster_fixture import load_pitr, load_tool
from tests.pg.test_desk_on_server import (
    cli,
    desk_folder,
    import_register,
    new_database,
    server_env,  # noqa: F401  (registers the fixture)
    server_url,
)
from tests.test_cli import ADMIN, CHEAP_ARGON2, CLERK, spanish_dni_mrz

pytestmark = pytest.mark.usefixtures("server_env")
NIGHT = datetime.fromisoformat("2026-11-28T22:00:00+01:00")  # the desks' clock (--at)


@pytest.fixture(scope="module")
def archiving() -> Iterator[Any]:
    """A throwaway cluster archiving its WAL (archive_mode on, restarted)."""
    pitr = load_pitr()
    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    cluster = pitr.ArchivingCluster(
        Path(tempfile.mkdtemp(prefix="admission-pitr-")), desks=("desk1", "desk2")
    )
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def admit(folder: Path, number: int, minute: int) -> dict[str, Any]:
    at = (NIGHT + timedelta(minutes=minute)).isoformat()
    code, out = cli(folder, "admit", "--mrz", *spanish_dni_mrz(number), "--at", at, "--no-pdf")
    assert code == 0 and out["verdict"] == "ADMIT", out
    return dict(out)


def newest_entry(cluster: Any, database: str, action: str = "") -> tuple[int, str, datetime]:
    """The newest audit entry (of ``action``), read as the server's superuser."""
    with psycopg.connect(cluster.superuser_conninfo(database)) as conn:
        row = conn.execute(
            "SELECT seq, digest, at FROM audit WHERE %s IN ('', action) ORDER BY seq DESC LIMIT 1",
            (action,),
        ).fetchone()
    assert row is not None
    return int(row[0]), str(row[1]), codec.parse_ts(str(row[2]))


def sign_in(monkeypatch: pytest.MonkeyPatch, account: tuple[str, list[str], str]) -> None:
    monkeypatch.setenv("ADMISSION_USER", account[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", account[2])


def add_accounts(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The administrator (the first account, no sign-in), then the clerk made by it."""
    monkeypatch.setattr(accounts, "Argon2Hasher", partial(accounts.Argon2Hasher, **CHEAP_ARGON2))
    for account in (ADMIN, CLERK):
        name, roles, password = account
        monkeypatch.setenv("ADMISSION_NEW_PASSWORD", password)
        code, out = cli(folder, "account", "add", name, "--display-name", name, "--role", *roles)
        assert code == 0, out
        sign_in(monkeypatch, ADMIN)
    monkeypatch.delenv("ADMISSION_NEW_PASSWORD")


def audit_head(folder: Path) -> str:
    code, out = cli(folder, "audit", "head")
    assert code == 0, out
    return f"{out['seq']}:{out['digest']}"


def test_a_server_restored_to_an_earlier_minute_is_confirmed_before_any_desk_writes(
    archiving: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = new_database(archiving)
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(archiving, database))
    one = desk_folder(tmp_path, archiving, "DESK1")
    two = desk_folder(tmp_path, archiving, "DESK2")
    assert cli(one, "init")[0] == 0
    import_register(one, tmp_path)
    add_accounts(one, monkeypatch)  # the clerk admits, the administrator confirms
    sign_in(monkeypatch, CLERK)
    backup = archiving.base_backup()  # the night's base backup

    # 22:00-22:04: admitted, then the instant the server is restored to
    for minute, number in enumerate((10000001, 10000002, 10000003)):
        admit(one if minute % 2 == 0 else two, number, 2 * minute)
    anchor = audit_head(one)  # printed on the visitor book before the restore point
    time.sleep(0.2)
    instant = archiving.now()
    time.sleep(0.2)
    # 22:06-22:10: cards the restore will lose (they exist on paper)
    cards_lost = [admit(one if i % 2 else two, 10000004 + i, 6 + 2 * i) for i in range(3)]
    later = audit_head(one)
    after = newest_entry(archiving, database)
    assert f"{after[0]}:{after[1]}" == later
    kept = remembered_head(one / "postgresql")
    assert kept is not None and (kept.seq, kept.digest) == after[:2]
    archiving.switch_wal()  # the last segment reaches the archive

    restored = archiving.restore(backup, instant, Path(tempfile.mkdtemp(prefix="admission-r-")))
    try:
        before = newest_entry(restored, database)
        assert f"{before[0]}:{before[1]}" == anchor  # replayed to the instant, no further
        lost_at_two = remembered_head(two / "postgresql")
        assert lost_at_two is not None and lost_at_two.seq > before[0]
        monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(restored, database))

        # the desk refuses to write and says how far the file went back
        code, out = cli(one, "admit", "--mrz", *spanish_dni_mrz(10000009), "--no-pdf")
        assert code != 0 and out["error"] == "PG_FILE_WENT_BACK", out
        missing, minutes = after[0] - before[0], int((after[2] - before[2]).total_seconds() // 60)
        assert missing > 0 and minutes == 6
        said = out["detail"]
        assert f"{missing} entries and {minutes} minutes missing" in said, said
        assert f"entry {before[0]} (2026-11-28 22:04)" in said, said
        assert f"entry {after[0]} (2026-11-28 22:10)" in said, said
        assert newest_entry(restored, database)[0] < after[0]  # nothing admitted

        # reads still work: a visitor's record, the chain against the anchors
        code, out = cli(one, "visitor", "show", "1")
        assert code == 0, out
        code, out = cli(one, "audit", "verify", "--anchor", anchor)
        assert code == 0 and out["ok"] is True and out["anchors"] == 1, out
        code, out = cli(one, "audit", "verify", "--anchor", later)
        assert code == 1 and out["problem"] == "ANCHOR_NOT_FOUND", out

        # the administrator (not the clerk) confirms; the desk writes again
        code, out = cli(one, "server", "confirm-restore")
        assert code == 1 and out["error"] == "ROLE_REQUIRED", out
        sign_in(monkeypatch, ADMIN)
        code, out = cli(one, "server", "confirm-restore")
        assert code == 0 and out["confirmed"] is True, out
        confirmed = newest_entry(restored, database, "FILE_RESTORED")
        assert confirmed[0] == out["seq"]
        assert (out["remembered_seq"], out["entries_missing"]) == (str(after[0]), str(missing))
        assert out["minutes_missing"] == str(minutes)
        code, out = cli(one, "server", "confirm-restore")
        assert code == 1 and out["error"] == "PG_FILE_NOT_WENT_BACK", out
        sign_in(monkeypatch, CLERK)
        first = admit(one, 10000009, 30)
        # the restored file gives the first lost number again: the paper cards are the
        # operator's to reconcile, which is why the desk waited for the confirmation
        assert first["card_number"] == cards_lost[0]["card_number"]

        # the other desk's last entry was lost too: the confirmation covers it
        admit(two, 10000010, 31)
        code, out = cli(two, "audit", "verify", "--anchor", anchor)
        assert code == 0 and out["ok"] is True, out
    finally:
        restored.stop()


def test_a_restart_of_the_server_trips_nothing(
    archiving: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = new_database(archiving)
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(archiving, database))
    desk = desk_folder(tmp_path, archiving, "DESK1")
    assert cli(desk, "init")[0] == 0
    import_register(desk, tmp_path)
    admit(desk, 10000001, 0)
    seen = remembered_head(desk / "postgresql")
    archiving.restart()
    admit(desk, 10000002, 1)
    now = remembered_head(desk / "postgresql")
    assert seen is not None and now is not None and now.seq > seen.seq


def test_a_failover_to_the_synchronous_standby_trips_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The promoted standby holds every entry a desk was told committed (synchronous
    commit): the desk's head is there, exactly, and it writes on."""
    from tests.pg.cluster_fixture import load_replication

    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    pair = load_replication().PgReplication(
        Path(tempfile.mkdtemp(prefix="admission-drill-pair-")), desks=("desk1",)
    )
    try:
        pair.start()
        database = new_database(pair.cluster)
        first, second = pair.ports
        host = pair.cluster.host
        url = (
            f"postgresql://desk1@{host}:{first},{host}:{second}/{database}"
            f"?hostaddr={pair.cluster.hostaddr},{pair.cluster.hostaddr}"
            "&target_session_attrs=read-write"
        )
        monkeypatch.setenv("ADMISSION_DATABASE_URL", url)
        desk = desk_folder(tmp_path, pair.cluster, "DESK1")
        assert cli(desk, "init")[0] == 0
        import_register(desk, tmp_path)
        admit(desk, 10000001, 0)
        seen = remembered_head(desk / "postgresql")
        assert seen is not None
        pair.kill_primary()
        pair.promote()
        admit(desk, 10000002, 1)
        now = remembered_head(desk / "postgresql")
        assert now is not None and now.seq > seen.seq
    finally:
        pair.stop()


def test_the_head_kept_only_moves_forward_and_an_unreadable_one_is_refused(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "postgresql"
    assert remembered_head(folder) is None
    newer, older = AuditHead(9, "ab" * 32, NIGHT), AuditHead(6, "cd" * 32, NIGHT)
    assert remember_head(folder, newer)
    assert not remember_head(folder, older)  # another process of the desk saw more
    assert remembered_head(folder) == newer
    assert remember_head(folder, older, replace=True)  # a confirmed restore
    assert remembered_head(folder) == older
    kept = json.loads((folder / AUDIT_HEAD_FILE).read_text("ascii"))
    assert set(kept) == {"seq", "digest", "at"}  # numbers and a time, nothing personal
    (folder / AUDIT_HEAD_FILE).write_text('{"seq": "nine"}', encoding="ascii")
    with pytest.raises(ConfigError) as excinfo:
        remembered_head(folder)
    assert excinfo.value.code is RewoundCode.HEAD_UNREADABLE


def test_a_desk_left_open_through_the_restore_refuses_its_next_write(tmp_path: Path) -> None:
    """The server restored under a running desk: the desk follows the primary to the
    restored server (a new timeline), compares again before writing and refuses; the
    confirmation lets it write on, its kept head the restored chain's."""
    from psycopg.conninfo import make_conninfo

    from db.audit_key import AuditKey
    from db.pg.crypto import InstallationKey
    from db.pg.primary import PrimaryFollower
    from db.pg.rewound import GuardedPgStore
    from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    pitr = load_pitr()
    cluster = pitr.ArchivingCluster(Path(tempfile.mkdtemp(prefix="admission-open-")))
    restored = None
    try:
        cluster.start()
        schema = fresh_schema(cluster)
        backup = cluster.base_backup()
        spare = load_tool().free_port()  # where the restored server will listen
        conninfo = make_conninfo(
            schema_conninfo(cluster, schema),
            host=f"{cluster.host},{cluster.host}",
            hostaddr=f"{cluster.hostaddr},{cluster.hostaddr}",
            port=f"{cluster.port},{spare}",
            target_session_attrs="read-write",
        )
        folder = tmp_path / "postgresql"
        opened = GuardedPgStore.open(
            conninfo,
            InstallationKey.generate("test"),
            audit_key=AuditKey.generate("test"),
            create=True,
            max_connections=2,
            primary=PrimaryFollower(folder=folder),
        )
        assert isinstance(opened, GuardedPgStore)
        with opened as store:
            assert store.watch(folder) is None
            for minute in range(3):
                store.append("cli", "DRILL", "x", NIGHT + timedelta(minutes=minute))
            store.set_setting("drill", "before")
            time.sleep(0.2)
            instant = cluster.now()
            time.sleep(0.2)
            for minute in range(5, 8):
                store.append("cli", "DRILL", "x", NIGHT + timedelta(minutes=minute))
            cluster.switch_wal()
            cluster.kill()
            base = Path(tempfile.mkdtemp(prefix="admission-open-r-"))
            restored = cluster.restore(backup, instant, base, port=spare)

            deadline = time.monotonic() + 30  # the pool's broken connections replaced
            while True:
                try:
                    store.head()
                    break
                except StoreError:
                    assert time.monotonic() < deadline, "the desk never reached the restored server"
                    time.sleep(0.2)
            with pytest.raises(StoreError) as excinfo:
                store.set_setting("drill", "after")
            assert excinfo.value.code is RewoundCode.WENT_BACK
            went = store.went_back
            assert went is not None and went.entries_missing == 3 and went.minutes_missing == 5
            assert store.get_setting("drill") == "before"  # reads still work

            store.confirm_restore("jefa")
            store.set_setting("drill", "after")
            kept = remembered_head(folder)
            assert kept is not None and kept == store.head()
    finally:
        if restored is not None:
            restored.stop()
        cluster.stop()
