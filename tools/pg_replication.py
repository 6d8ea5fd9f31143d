"""A throwaway primary and a synchronous streaming standby, for the failover tests and
their benchmark (Decreto 58/2006, art. 22.1: a card number acknowledged to a desk is on
two servers before the desk hears it, so a failover never gives it twice).

    with PgReplication(Path(tempfile.mkdtemp()), desks=("desk1",)) as pair:
        psycopg.connect(pair.desk_conninfo("desk1"))   # both hosts, read-write
        pair.kill_primary()
        pair.promote()        # the standby is the primary; the desks follow
        pair.new_standby()    # a fresh standby of the new primary, synchronous again

The first server is tools/pg_cluster.py's ``PgCluster`` (the same CA, server and desk
certificates, ``hostssl ... cert`` for the desks). The standby is made from it with
``pg_basebackup -R`` (PostgreSQL 15 docs, section 27.2 "Log-Shipping Standby Servers"):
it streams over the primary's Unix socket (``local replication`` in pg_hba.conf), under
its own ``application_name``, which the primary's ``synchronous_standby_names`` names,
with ``synchronous_commit = on`` (section 27.2.8: a commit returns once the standby has
flushed its WAL). Each server listens on loopback with TLS as the first one does; the
desks name both in one multi-host conninfo (libpq, section 34.1.1.3) with
``target_session_attrs=read-write``.

The two ports stay the desks' two hosts for the whole run: after a kill and a promotion,
:meth:`new_standby` removes the old primary and makes the new standby on its port, so a
benchmark can kill and promote many times behind one connection string. A promoted
standby runs alone (no synchronous standby named) until :meth:`new_standby`: the
production set-up keeps two standbys for that (``ANY 1 (a, b)``).

Throwaway: ``fsync`` stays off (a process kill loses nothing the OS has), but the
replication is real. Run as root, every server runs as ``postgres`` (PgCluster._run).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from psycopg.conninfo import make_conninfo

if "pg_cluster" not in sys.modules:  # tests load it from its file (cluster_fixture.py)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from pg_cluster import (
    DATABASE,
    START_TIMEOUT_S,
    SUPERUSER,
    ClusterError,
    PgCluster,
    free_port,
    write_settings,
)

SYNC_TIMEOUT_S = 30.0  # a new standby streams, synchronous, within this


@dataclass
class Node:
    """One server of the pair: its folders, its port and the name it streams under."""

    name: str  # application_name, as synchronous_standby_names names it
    data_dir: Path
    socket_dir: Path
    port: int
    running: bool = False


class PgReplication:
    """A primary and a synchronous standby in ``base`` (removed by :meth:`stop`)."""

    def __init__(
        self,
        base: Path,
        *,
        desks: tuple[str, ...] = ("desk1",),
        bin_dir: Path | None = None,
        database: str = DATABASE,
    ) -> None:
        # every server: synchronous_commit on (PgCluster's own default is off)
        self.cluster = PgCluster(
            base,
            desks=desks,
            bin_dir=bin_dir,
            database=database,
            settings={"synchronous_commit": "on"},
        )
        self.primary: Node | None = None
        self.standby: Node | None = None
        self.old_primary: Node | None = None  # killed; back by restart_old_primary
        self.ports: tuple[int, int] = (0, 0)  # the desks' two hosts, first then second
        self._made = 0  # standbys made: each gets a new name and folder

    # -- life cycle ----------------------------------------------------------------------
    def __enter__(self) -> PgReplication:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """The primary (PgCluster, its database and desk roles), then its standby."""
        cluster = self.cluster
        cluster.start()
        self.primary = Node("node0", cluster.data_dir, cluster.socket_dir, cluster.port, True)
        self.new_standby()

    def stop(self) -> None:
        """Every server stopped at once, the folder removed."""
        for node in (self.primary, self.standby, self.old_primary):
            if node is not None and node.running:
                with contextlib.suppress(ClusterError):
                    self._pg_ctl(node, "-m", "immediate", "-w", "stop")
                node.running = False
        self.cluster.stop()

    # -- what the desks and the tests connect with -------------------------------------
    def desk_conninfo(self, desk: str, **extra: Any) -> str:
        """Both servers in one libpq conninfo (TLS verify-full, the desk's certificate):
        libpq takes the first that accepts a read-write session. The primary of now comes
        first: killed and restarted as it was, it is the host a desk would try first."""
        first, second = self.ports
        if self.primary is not None and self.primary.port == second:
            first, second = second, first
        return str(
            make_conninfo(
                self.cluster.desk_conninfo(desk),
                host=f"{self.cluster.host},{self.cluster.host}",
                hostaddr=f"{self.cluster.hostaddr},{self.cluster.hostaddr}",
                port=f"{first},{second}",
                target_session_attrs="read-write",
                **extra,
            )
        )

    def node_desk_conninfo(self, node: Node, desk: str) -> str:
        """One server only, as a desk reaches it (TLS)."""
        return str(make_conninfo(self.cluster.desk_conninfo(desk), port=node.port))

    def superuser_conninfo(self, node: Node, dbname: str | None = None) -> str:
        """The superuser on one server's own Unix socket."""
        return str(
            make_conninfo(
                host=str(node.socket_dir),
                port=node.port,
                user=SUPERUSER,
                dbname=dbname or self.cluster.database,
            )
        )

    def server_log(self, node: Node) -> str:
        path = node.data_dir.parent / "server.log"
        return path.read_text("utf-8", errors="replace") if path.exists() else ""

    # -- the operations ------------------------------------------------------------------
    def kill_primary(self) -> Node:
        """The primary's processes end at once, nothing flushed on the way out (``pg_ctl
        stop -m immediate``: SIGQUIT to the postmaster)."""
        node = self._need(self.primary, "a primary")
        self._pg_ctl(node, "-m", "immediate", "-w", "stop")
        node.running = False
        self.old_primary, self.primary = node, None
        return node

    def promote(self) -> Node:
        """The standby leaves recovery and takes writes on a new timeline (``pg_ctl
        promote -w``: returns once it accepts them)."""
        node = self._need(self.standby, "a standby")
        self._pg_ctl(node, "-w", "-t", str(START_TIMEOUT_S), "promote")
        self.primary, self.standby = node, None
        return node

    def restart_old_primary(self, *, waits_for_standby: bool = False) -> Node:
        """The killed primary started again as it was: read-write, on the old timeline,
        beside the promoted one (the split-brain a desk must never write to). With
        ``waits_for_standby`` False it no longer waits for its lost standby (an operator
        who brought it back alone): its commits return, the worst case for the desks."""
        node = self._need(self.old_primary, "a killed primary")
        if not waits_for_standby:
            conf = node.data_dir / "postgresql.auto.conf"
            lines = conf.read_text("utf-8").splitlines()
            kept = [line for line in lines if not line.startswith("synchronous_standby_names")]
            conf.write_text("\n".join([*kept, "synchronous_standby_names = ''", ""]), "utf-8")
        self._start(node)
        return node

    def new_standby(self) -> Node:
        """A new standby of the current primary, on the port the desks name that the
        primary does not use (the old primary's, which is removed first), made with
        ``pg_basebackup -R``, named in the primary's ``synchronous_standby_names`` once it
        streams; returns when the primary reports it ``sync``."""
        primary = self._need(self.primary, "a primary")
        if self.standby is not None:
            raise ClusterError("there is a standby already")
        port = self._free_slot(primary)
        self._made += 1
        name = f"node{self._made}"
        folder = self.cluster.server_dir / name
        node = Node(name, folder / "data", folder / "socket", port)
        self._make_dir(folder)
        self._make_dir(node.socket_dir)
        self.cluster._run(
            [
                str(self.cluster.bin_dir / "pg_basebackup"),
                "-h",
                str(primary.socket_dir),
                "-p",
                str(primary.port),
                "-U",
                SUPERUSER,
                "-D",
                str(node.data_dir),
                "-R",  # standby.signal and primary_conninfo
                "-X",
                "stream",
                "-c",
                "fast",
                "--no-sync",
            ],
            "pg_basebackup",
        )
        # its own port and socket; it streams under its name; promoted, it runs alone
        # until a standby of its own is named (an empty synchronous_standby_names)
        settings = self.cluster.server_settings(port, node.socket_dir)
        settings["synchronous_standby_names"] = "''"
        stream = make_conninfo(
            host=str(primary.socket_dir), port=primary.port, user=SUPERUSER, application_name=name
        )
        settings["primary_conninfo"] = "'" + stream.replace("'", "''") + "'"
        write_settings(node.data_dir, settings)
        self._start(node)
        self.standby = node
        self._name_synchronous(primary, name)
        return node

    # -- checks the tests use ------------------------------------------------------------
    def query(self, node: Node, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
        import psycopg

        with psycopg.connect(self.superuser_conninfo(node), autocommit=True) as conn:
            cur = conn.execute(statement.encode(), params)
            return cur.fetchall() if cur.description else []

    def replication_state(self) -> list[tuple[str, str, str]]:
        """The primary's standbys: (application_name, state, sync_state)."""
        primary = self._need(self.primary, "a primary")
        rows = self.query(
            primary, "SELECT application_name, state, sync_state FROM pg_stat_replication"
        )
        return [(str(a), str(s), str(y)) for a, s, y in rows]

    def timeline(self, node: Node) -> int:
        """The timeline the server writes (a primary) or receives (a standby) now."""
        rows = self.query(
            node,
            "SELECT CASE WHEN pg_is_in_recovery() "
            "THEN (SELECT received_tli FROM pg_stat_wal_receiver) "
            "ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END",
        )
        return int(rows[0][0])

    # -- internals -----------------------------------------------------------------------
    @staticmethod
    def _need(node: Node | None, what: str) -> Node:
        if node is None:
            raise ClusterError(f"the pair has no {what} now")
        return node

    def _free_slot(self, primary: Node) -> int:
        """The desks' other port: the first standby's is new; later, the old primary's
        (stopped and its folder removed: it never comes back)."""
        old = self.old_primary
        if old is not None:
            if old.running:
                with contextlib.suppress(ClusterError):
                    self._pg_ctl(old, "-m", "immediate", "-w", "stop")
                old.running = False
            if old.data_dir != self.cluster.data_dir:
                shutil.rmtree(old.data_dir.parent, ignore_errors=True)
            self.old_primary = None
            return old.port
        port = free_port()
        self.ports = (primary.port, port)
        return port

    def _make_dir(self, path: Path) -> None:
        path.mkdir(mode=0o700)
        account = self.cluster._account
        if account is not None:
            os.chown(path, account.pw_uid, account.pw_gid)

    def _pg_ctl(self, node: Node, *args: str) -> None:
        command = [str(self.cluster.bin_dir / "pg_ctl"), "-D", str(node.data_dir), *args]
        self.cluster._run(command, f"pg_ctl {' '.join(args)} ({node.name})")

    def _start(self, node: Node) -> None:
        log = str(node.data_dir.parent / "server.log")
        self._pg_ctl(node, "-l", log, "-w", "-t", str(START_TIMEOUT_S), "start")
        node.running = True

    def _name_synchronous(self, primary: Node, name: str) -> None:
        """``synchronous_standby_names`` on the primary names the standby (ALTER SYSTEM,
        reload), once it streams; then wait for the primary to call it ``sync``."""
        deadline = time.monotonic() + SYNC_TIMEOUT_S
        self.query(primary, f"ALTER SYSTEM SET synchronous_standby_names = '{name}'")
        self.query(primary, "SELECT pg_reload_conf()")
        while (name, "streaming", "sync") not in self.replication_state():
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"standby {name} not synchronous in {SYNC_TIMEOUT_S} s: "
                    f"{self.replication_state()}"
                )
            time.sleep(0.05)


__all__ = ["Node", "PgReplication"]
