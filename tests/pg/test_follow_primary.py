"""A desk follows the primary and never goes back (db/pg/primary.py): on a real primary and
streaming standby (tools/pg_replication.py), as the desk role over TLS. The desk skips
the standby, follows a promotion, keeps the newest timeline in its folder, and refuses the
old primary when it comes back as it was (art. 22.1: a card number is never given twice).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from admission.errors import ConfigError, StoreError
from db.audit_key import AuditKey
from db.pg.connect import PgConnectCode
from db.pg.crypto import InstallationKey
from db.pg.desk import ServerLink, refuse_without_sync_standby
from db.pg.primary import (
    TIMELINE_FILE,
    Failover,
    PgPrimaryCode,
    PrimaryFollower,
    remember_timeline,
    remembered_timeline,
    split_hosts,
)
from db.pg.store import PgStore
from db.pg.target import PgTarget, parse_url
from db.pg.tx import PgTx
from tests.pg.cluster_fixture import load_replication, load_tool

T0 = datetime(2026, 12, 5, 23, 4, tzinfo=UTC)


@pytest.fixture
def pair() -> Iterator[Any]:
    """A primary (first host) and its synchronous standby (second host), fresh per test."""
    tool = load_tool()
    if tool.find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    replication = load_replication().PgReplication(
        Path(tempfile.mkdtemp(prefix="admission-follow-")), desks=("desk1",)
    )
    try:
        replication.start()
    except BaseException:
        replication.stop()
        raise
    try:
        yield replication
    finally:
        replication.stop()


def label(pair: Any, port: int) -> str:
    return f"{pair.cluster.host}:{port}"


def in_order(pair: Any, *ports: int) -> str:
    """The desk's conninfo naming the pair's hosts by ``ports``, in that order."""
    return str(make_conninfo(pair.desk_conninfo("desk1"), port=",".join(map(str, ports))))


def desk_target(pair: Any, tmp_path: Path, *ports: int) -> PgTarget:
    """The desk's URL naming the pair's hosts by ``ports``, its TLS files in a folder."""
    folder = tmp_path / "certs"
    folder.mkdir()
    shutil.copy(pair.cluster.ca_cert, folder / "root.crt")
    shutil.copy(pair.cluster.client_cert("desk1"), folder / "postgresql.crt")
    shutil.copy(pair.cluster.client_key("desk1"), folder / "postgresql.key")
    (folder / "postgresql.key").chmod(0o600)
    host = pair.cluster.host
    hosts = ",".join(f"{host}:{port}" for port in ports)
    addresses = ",".join(pair.cluster.hostaddr for _ in ports)
    url = f"postgresql://desk1@{hosts}/{pair.cluster.database}?hostaddr={addresses}"
    return parse_url(url, cert_dir=folder)


# -- without a server ----------------------------------------------------------------------
def test_a_multi_host_string_splits_into_one_string_per_host() -> None:
    conninfo = make_conninfo(
        host="db1,db2,/run/pg",
        port="5432,5433,5434",
        hostaddr="10.0.0.1,,",
        user="desk1",
        dbname="admission",
        target_session_attrs="read-write",
    )
    hosts = split_hosts(conninfo)
    assert [h.label for h in hosts] == ["db1:5432", "db2:5433", "/run/pg:5434"]
    first, second, third = (conninfo_to_dict(h.conninfo) for h in hosts)
    assert (first["host"], first["port"], first["hostaddr"]) == ("db1", "5432", "10.0.0.1")
    assert "hostaddr" not in second and second["port"] == "5433"
    assert third["host"] == "/run/pg" and third["user"] == "desk1"
    # each host is checked by the follower itself, with its timeline, in one query
    assert all("target_session_attrs" not in conninfo_to_dict(h.conninfo) for h in hosts)
    single = split_hosts(make_conninfo(host="db1", port=5432, dbname="admission"))
    assert [h.label for h in single] == ["db1:5432"]


def test_the_timeline_file_is_written_whole_and_read_back(tmp_path: Path) -> None:
    folder = tmp_path / "postgresql"
    assert remembered_timeline(folder) is None
    remember_timeline(folder, 3)
    assert (folder / TIMELINE_FILE).read_text("ascii") == "3\n"
    assert remembered_timeline(folder) == 3
    assert PrimaryFollower(folder=folder).timeline == 3
    for bad in ("", "0", "x3", "-1", "99999999999"):
        (folder / TIMELINE_FILE).write_text(bad, "ascii")
        with pytest.raises(ConfigError) as excinfo:
            remembered_timeline(folder)
        assert excinfo.value.code is PgPrimaryCode.TIMELINE_UNREADABLE


def test_no_host_answering_keeps_the_connection_s_own_code() -> None:
    follower = PrimaryFollower(wait_s=0)
    # nothing listens on port 1 of loopback (a privileged port nobody serves here)
    conninfo = make_conninfo(host="127.0.0.1,127.0.0.1", port="1,1", connect_timeout=2)
    with pytest.raises(StoreError) as excinfo:
        follower.connect(conninfo)
    assert excinfo.value.code is PgConnectCode.UNREACHABLE
    assert follower.current is None and follower.timeline is None


# -- a primary and its standby ---------------------------------------------------------------
def test_the_desk_skips_the_standby_follows_the_promotion_and_never_goes_back(
    pair: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "postgresql"
    first, second = pair.ports
    follower = PrimaryFollower(folder=folder, clock=lambda: T0, wait_s=0)
    # the standby named first is skipped: it is in recovery
    with follower.connect(in_order(pair, second, first)) as conn:
        assert conn.execute("SELECT pg_is_in_recovery(), current_user").fetchone() == (
            False,
            "desk1",
        )
        assert conn.info.port == first
    assert follower.current == label(pair, first) and follower.timeline == 1
    assert remembered_timeline(folder) == 1 and follower.failover is None
    # commits wait for the standby, but the desk's role may not see its state
    sync = follower.sync
    assert sync is not None and (sync.setting, sync.attached, sync.unseen) == ("on", 0, 1)
    assert sync.warning is PgPrimaryCode.SYNC_STANDBY_UNSEEN
    # the administrator's grant (the README's): the standby is seen streaming as sync
    pair.query(pair.primary, "GRANT pg_read_all_stats TO desk1")
    follower.connect(in_order(pair, first, second)).close()
    sync = follower.sync
    assert sync is not None and (sync.attached, sync.unseen) == (1, 0)
    assert sync.warning is None

    # the standby alone cannot take the desk's writes
    pair.kill_primary()
    with pytest.raises(StoreError) as excinfo:
        follower.connect(in_order(pair, first, second))
    assert excinfo.value.code is PgPrimaryCode.NO_PRIMARY

    # promoted, it is the primary on the next timeline: a failover, remembered on disk
    pair.promote()
    with follower.connect(in_order(pair, first, second)) as conn:
        assert conn.info.port == second
    assert follower.current == label(pair, second)
    assert follower.timeline == 2 and remembered_timeline(folder) == 2
    assert follower.failover == Failover(label(pair, first), label(pair, second), T0, 2)
    # promoted, it runs alone until a new standby is named: a warning, not a refusal
    sync = follower.sync
    assert sync is not None and sync.warning is PgPrimaryCode.NO_SYNC_STANDBY

    # the old primary comes back as it was: writable, on timeline 1. Named first, it is
    # refused by this desk and by a desk restarted from the same folder
    old = pair.restart_old_primary()
    assert pair.query(old, "SELECT pg_is_in_recovery()") == [(False,)]
    restarted = PrimaryFollower(folder=folder, wait_s=0)
    assert restarted.timeline == 2
    with restarted.connect(in_order(pair, first, second)) as conn:
        assert conn.info.port == second
    assert restarted.fenced == 1 and restarted.current == label(pair, second)
    only_old = in_order(pair, first)
    for desk in (follower, restarted):
        with pytest.raises(StoreError) as excinfo:
            desk.connect(only_old)
        assert excinfo.value.code is PgPrimaryCode.FENCED
    assert remembered_timeline(folder) == 2
    # a desk that never saw the promotion would take it: the fence is what it has seen
    assert PrimaryFollower(wait_s=0).connect(only_old).info.port == first


def test_a_store_s_pool_reaches_the_promoted_standby_promptly(pair: Any, tmp_path: Path) -> None:
    schema = "follow_t"
    with psycopg.connect(pair.superuser_conninfo(pair.primary), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {} AUTHORIZATION desk1").format(sql.Identifier(schema)))
    first, second = pair.ports
    desk = in_order(pair, first, second)
    conninfo = str(make_conninfo(desk, options=f"-c search_path={schema}"))
    follower = PrimaryFollower(folder=tmp_path / "postgresql", clock=lambda: T0)
    with PgStore.open(
        conninfo,
        InstallationKey.generate("test"),
        audit_key=AuditKey.generate("test"),
        create=True,
        max_connections=2,
        primary=follower,
    ) as store:
        assert store.primary is follower and follower.current == label(pair, first)
        with pytest.raises(StoreError) as excinfo:  # the desk role sees no sync_state
            refuse_without_sync_standby(store, True)
        assert excinfo.value.code is PgPrimaryCode.SYNC_STANDBY_UNSEEN

        def counted(tx: PgTx) -> None:
            tx.execute("UPDATE counters SET next = next WHERE name = 'audit_coverage'")

        store.write(counted)
        pair.kill_primary()
        killed = time.monotonic()
        pair.promote()
        # the pooled connections to the dead primary fail their check and are replaced
        # through the follower; the first calls may still meet a broken one
        deadline = killed + 30
        while True:
            try:
                store.write(counted)
                break
            except StoreError:
                assert time.monotonic() < deadline, "the desk never reached the new primary"
                time.sleep(0.2)
        took = time.monotonic() - killed
        # the promoted standby commits alone: a desk requiring a synchronous standby refuses
        refuse_without_sync_standby(store, False)
        with pytest.raises(StoreError) as excinfo:
            refuse_without_sync_standby(store, True)
        assert excinfo.value.code is PgPrimaryCode.NO_SYNC_STANDBY
        assert follower.current == label(pair, second) and follower.timeline == 2
        assert follower.failover is not None and follower.failover.current == label(pair, second)
        assert took < 15, f"{took:.1f} s to write again after the promotion"
        store.ping()

        # the status bar's probe follows the same primary: it names it and the failover
        link = ServerLink(desk_target(pair, tmp_path, first, second), primary=follower)
        try:
            assert link.measure() > 0
            assert link.describe() == f"{label(pair, second)}/{pair.cluster.database}"
            assert link.failover_at() == T0 and link.warning() == "PG_NO_SYNC_STANDBY"
        finally:
            link.close()


def test_a_desk_refusing_to_write_after_a_restore_says_so_in_the_status_bar() -> None:
    """While the desk refuses to write until an operator confirms a restore (art. 22.1:
    the cards issued since exist on paper), its status bar's warning says so, before
    any standby's; the refusal lifted, the warning goes."""
    from db.pg.target import parse_url

    target = parse_url("postgresql:///admission?host=/run/pgA,/run/pgB&user=desk1")
    refusing = [True]
    link = ServerLink(target, went_back=lambda: refusing[0])
    try:
        assert link.warning() == "PG_FILE_WENT_BACK"
        refusing[0] = False
        assert link.warning() == ""
    finally:
        link.close()
