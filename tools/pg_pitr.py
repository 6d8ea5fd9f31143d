"""Point-in-time recovery on a throwaway cluster: WAL archiving, a base backup, and a
restore of that backup to a chosen instant (PostgreSQL 15 docs, section 26.3 "Continuous
Archiving and Point-in-Time Recovery"; 20.5.6 "Recovery Target").

    with ArchivingCluster(Path(tempfile.mkdtemp()), desks=("desk1",)) as cluster:
        backup = cluster.base_backup()
        ...  # writes; cluster.now() between them
        cluster.switch_wal()  # the last segment reaches the archive
        restored = cluster.restore(backup, instant, Path(tempfile.mkdtemp()))
        psycopg.connect(restored.desk_conninfo("desk1"))  # same TLS files, its own port

The settings and commands are the ones an operator types on a real server (the drill in
the README); they are kept here as constants so the text and the test cannot drift:
``ARCHIVE_SETTINGS`` (``ALTER SYSTEM``, then a restart), ``BASE_BACKUP``
(``pg_basebackup``) and ``RECOVERY_SETTINGS`` with an empty ``recovery.signal``.

The cluster is :class:`pg_cluster.PgCluster` (not edited): run as root, the server, the
archive and the backups belong to its account (``postgres``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

import psycopg

if "pg_cluster" not in sys.modules:  # tests load it from its file (cluster_fixture.py)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from pg_cluster import START_TIMEOUT_S, SUPERUSER, ClusterError, PgCluster, free_port

# 26.3.1: every completed WAL segment copied into the archive, never over one there
ARCHIVE_COMMAND = "test ! -f {archive}/%f && cp %p {archive}/%f"
# 26.3.4: the segments fetched back from the archive during recovery
RESTORE_COMMAND = "cp {archive}/%f %p"
# pg_basebackup: a plain copy, the WAL it needs streamed alongside, a fast checkpoint
BASE_BACKUP = ("pg_basebackup", "-D", "{backup}", "-Fp", "-X", "stream", "-c", "fast")
PROMOTE_TIMEOUT_S = 60


def archive_settings(archive: Path) -> dict[str, str]:
    """``ALTER SYSTEM SET name = value`` for each; archive_mode and wal_level take effect
    at the next restart (20.5, 20.6)."""
    return {
        "wal_level": "replica",
        "archive_mode": "on",
        "archive_command": ARCHIVE_COMMAND.format(archive=archive),
        "full_page_writes": "on",  # a base backup's pages are repaired from the WAL
    }


def recovery_settings(archive: Path, target: datetime) -> dict[str, str]:
    """The restored server's settings (20.5.5, 20.5.6) beside an empty recovery.signal:
    replay the archive up to ``target`` (the server's clock, with its offset), then end
    recovery and take writes (``promote``) on a new timeline."""
    if target.tzinfo is None:
        raise ValueError("the recovery target needs its UTC offset")
    return {
        "restore_command": RESTORE_COMMAND.format(archive=archive),
        "recovery_target_time": target.isoformat(sep=" "),
        "recovery_target_action": "promote",
    }


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class ArchivingCluster(PgCluster):
    """A throwaway :class:`PgCluster` archiving its WAL into ``archive_dir``, able to take
    base backups (its ``local replication`` line: the superuser over the Unix socket) and
    to restore them."""

    @property
    def archive_dir(self) -> Path:
        return self.server_dir / "archive"

    @property
    def backup_root(self) -> Path:
        return self.server_dir / "backups"

    def start(self) -> None:
        super().start()
        try:
            self.enable_archiving()
        except BaseException:
            self.stop()
            raise

    def enable_archiving(self) -> None:
        for folder in (self.archive_dir, self.backup_root):
            folder.mkdir(mode=0o700, exist_ok=True)
            self._own(folder)
        self.alter_system(archive_settings(self.archive_dir))
        self.restart()

    def alter_system(self, settings: Mapping[str, str]) -> None:
        with psycopg.connect(self.superuser_conninfo(), autocommit=True) as conn:
            for name, value in settings.items():
                conn.execute(f"ALTER SYSTEM SET {name} = {_quoted(value)}".encode())

    def restart(self) -> None:
        self._pg_ctl("restart", "-m", "fast")

    def kill(self) -> None:
        """The server stopped at once, as by a crash (its folder is kept)."""
        self._pg_ctl("stop", "-m", "immediate")

    def _pg_ctl(self, *args: str) -> None:
        log = str(self.server_dir / "server.log")
        data = str(self.data_dir)
        cmd = [str(self.bin_dir / "pg_ctl"), "-D", data, "-l", log, "-w"]
        self._run([*cmd, "-t", str(START_TIMEOUT_S), *args], f"pg_ctl {args[0]}")

    def _own(self, path: Path) -> None:
        account = self._account
        if account is not None:
            os.chown(path, account.pw_uid, account.pw_gid)

    # -- the server's clock and its archive ---------------------------------------------
    def now(self) -> datetime:
        """The server's clock (recovery_target_time is read against it)."""
        with psycopg.connect(self.superuser_conninfo(), autocommit=True) as conn:
            found = conn.execute("SELECT now()").fetchone()
        assert found is not None and isinstance(found[0], datetime)
        return found[0]

    def switch_wal(self, timeout_s: float = 30.0) -> str:
        """Close the current WAL segment (``pg_switch_wal()``) and wait until the archive
        holds it: everything written so far can be replayed."""
        with psycopg.connect(self.superuser_conninfo(), autocommit=True) as conn:
            row = conn.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()
            assert row is not None
            segment = str(row[0])
            deadline = time.monotonic() + timeout_s
            while True:
                done = conn.execute(
                    "SELECT last_archived_wal >= %s, failed_count FROM pg_stat_archiver",
                    (segment,),
                ).fetchone()
                if done is not None and done[0]:
                    return segment
                if time.monotonic() > deadline:
                    raise ClusterError(f"segment {segment} not archived: {self.server_log()}")
                time.sleep(0.1)

    def base_backup(self, name: str = "base") -> Path:
        """``pg_basebackup`` into ``backup_root/name`` (as the server's account)."""
        backup = self.backup_root / name
        cmd = [arg.format(backup=backup) for arg in BASE_BACKUP]
        cmd[0] = str(self.bin_dir / cmd[0])
        self._run(
            [*cmd, "-h", str(self.socket_dir), "-p", str(self.port), "-U", SUPERUSER],
            "pg_basebackup",
        )
        return backup

    # -- the restore ---------------------------------------------------------------------
    def restore(
        self, backup: Path, target: datetime, base: Path, *, port: int | None = None
    ) -> PgCluster:
        """A new server in ``base`` from ``backup`` replayed to ``target``, promoted, on
        its own port (``port``, else a free one) with this cluster's TLS files (the desks'
        certificates still serve): a :class:`PgCluster` whose ``stop`` removes only
        ``base``."""
        restored = PgCluster(base, desks=self.desks, bin_dir=self.bin_dir)
        restored._account = self._account
        restored.client_dir = self.client_dir  # the desks' CA and certificates
        base.mkdir(parents=True, exist_ok=True)
        base.chmod(0o711)
        server = restored.server_dir
        server.mkdir(mode=0o700)
        restored.socket_dir.mkdir(mode=0o700)
        shutil.copytree(backup, restored.data_dir)
        for name in ("server.crt", "server.key", "root.crt"):
            shutil.copy2(self.server_dir / name, server / name)
        data = restored.data_dir
        for stale in ("postmaster.pid", "postmaster.opts", "standby.signal"):
            (data / stale).unlink(missing_ok=True)
        (data / "recovery.signal").write_text("", encoding="utf-8")
        restored.port = port or free_port()
        settings = {
            "port": str(restored.port),
            "unix_socket_directories": str(restored.socket_dir),
            "ssl_cert_file": str(server / "server.crt"),
            "ssl_key_file": str(server / "server.key"),
            "ssl_ca_file": str(server / "root.crt"),
            "archive_mode": "off",  # the restored server is a new history: archive anew
            **recovery_settings(self.archive_dir, target),
        }
        with (data / "postgresql.auto.conf").open("a", encoding="utf-8") as handle:
            handle.writelines(f"{k} = {_quoted(v)}\n" for k, v in settings.items())
        if self._account is not None:
            for path in [server, *server.rglob("*")]:
                os.chown(path, self._account.pw_uid, self._account.pw_gid)
        data.chmod(0o700)
        log = str(server / "server.log")
        restored._run(
            [str(self.bin_dir / "pg_ctl"), "-D", str(data), "-l", log, "-w", "start"],
            "pg_ctl start (recovery)",
        )
        restored._started = True
        try:
            wait_promoted(restored.superuser_conninfo())
        except BaseException:
            restored.stop()
            raise
        return restored


def wait_promoted(conninfo: str, timeout_s: float = PROMOTE_TIMEOUT_S) -> None:
    """Until recovery reached its target and the server takes writes."""
    deadline = time.monotonic() + timeout_s
    while True:
        with (
            contextlib.suppress(psycopg.OperationalError),
            psycopg.connect(conninfo, autocommit=True) as conn,
        ):
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            if row is not None and not row[0]:
                return
        if time.monotonic() > deadline:
            raise ClusterError("the restored server did not leave recovery")
        time.sleep(0.2)


__all__ = [
    "ARCHIVE_COMMAND",
    "BASE_BACKUP",
    "RESTORE_COMMAND",
    "ArchivingCluster",
    "archive_settings",
    "recovery_settings",
    "wait_promoted",
]
