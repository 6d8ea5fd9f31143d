"""The visitor file a desk works on - its own SQLCipher file or the casino's PostgreSQL
server (arts. 154-155) - opened, created (``init``), restored or copied onto the server,
and the adapters over it (:class:`FileParts`) for the composition root (``main.py``).
psycopg is loaded only when a server is named: a desk of its own file never loads it."""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from admission import desk_ports
from admission.accounts import AccountService, LockoutPolicy
from admission.atomic_file import OutputGuard
from admission.backups import BackupInfo, RestoreInfo
from admission.desk_ports import BackupFile, DeskFile, DeskReads, ReprintQueue, ServerCopy
from admission.errors import InvalidStateError, StoreError
from admission.ports import Clock
from admission.registry.replica import RegistryReplica
from admission.restore_loss import RestoreLoss
from admission.retention_sweep import VoucherPurge
from admission.settings import Settings
from admission.vouchers.model import VoucherBook
from admission.vouchers.offline import OfflineVouchers
from db.accounts import StoreAccounts
from db.backup import DB_FILE, backup
from db.file_guard import preflight, refuse_existing
from db.keys import DbKey, KeyringBackend, resolve_key, system_keyring
from db.pg.codes import PgDeskCode
from db.registry_replica import ReplicaRegistry
from db.reports import desk_counters
from db.restore import restore
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook

if TYPE_CHECKING:
    from admission.counters import CounterReader
    from admission.records import PurgeReport
    from admission.registry.snapshot import SignatureVerifier
    from db.pg.store import PgStore
    from db.pg.target import PgTarget

# The demo file holds invented people only; its passphrase is public on purpose so
# that a newcomer reaches a working app without a keyring. Never used for real data.
DEMO_PASSPHRASE = "demo-only-not-for-real-visitors"
DATABASE_URL_ENV = "ADMISSION_DATABASE_URL"  # db.pg.target.ENV_VAR: wins over database.url


@dataclass(frozen=True)
class FileAccess:
    """Where and how this desk opens its visitor file; ``passphrase``: the one typed in
    the window (None: the variable, the keyring or the terminal); ``verifier``: the RIAJ
    snapshots' (art. 20.2); ``outputs``: where a file the operator names may go (art. 20.4)."""

    data_dir: Path
    settings: Settings
    clock: Clock
    demo: bool
    passphrase: Callable[[], str] | None
    verifier: SignatureVerifier | None
    outputs: OutputGuard


class DeskVouchers(VoucherBook, VoucherPurge, Protocol):
    """The voucher book of the file (art. 23.4) with its retention (art. 20.4)."""


@dataclass(frozen=True)
class FileParts:
    """The adapters of one kind of visitor file, for the composition root (main.py)."""

    store: DeskFile
    reads: DeskReads
    replica: RegistryReplica
    reprints: ReprintQueue
    vouchers: DeskVouchers
    accounts: AccountService
    counters: CounterReader
    purge: Callable[[datetime], PurgeReport]
    closers: list[Callable[[], None]]
    may_purge: Callable[[], bool]  # this desk runs the daily purge (art. 20.4)
    # what only this kind of file has: its backups (art. 20.4), its copy onto a server,
    # the server's keys, the server's link and the provisional vouchers without it
    backup_file: BackupFile
    server_copy: ServerCopy
    key_rotation: desk_ports.KeyRotation
    server: desk_ports.ServerLink | None = None
    offline_vouchers: OfflineVouchers | None = None


def target_of(data_dir: Path, settings: Settings) -> PgTarget | None:
    """The server this desk works on (``ADMISSION_DATABASE_URL``, else ``database.url``),
    None for the desk's own file. A URL that cannot be used is refused, never the file."""
    if not (os.environ.get(DATABASE_URL_ENV, "").strip() or settings["database.url"].strip()):
        return None
    from db.pg.target import CERT_SUBDIR, PgTarget, resolve_target

    found = resolve_target(settings["database.url"], os.environ, cert_dir=data_dir / CERT_SUBDIR)
    return found if isinstance(found, PgTarget) else None


def _lockout(settings: Settings) -> LockoutPolicy:
    return LockoutPolicy(
        settings["accounts.max_failures"], timedelta(minutes=settings["accounts.lock_minutes"])
    )


def open_parts(desk: FileAccess) -> FileParts:
    target = target_of(desk.data_dir, desk.settings)
    if target is not None:
        return _server_parts(desk, target)
    store = open_store(desk.data_dir, demo=desk.demo, clock=desk.clock, passphrase=desk.passphrase)

    def backup_file(out: Path, actor: str, *, force: bool = False) -> BackupInfo:
        casino, now = desk.settings["casino.id"], desk.clock.now()
        return backup(
            store, out, casino_id=casino, actor=actor, now=now, guard=desk.outputs, force=force
        )

    return _parts(
        desk,
        store,
        [store.close],
        may_purge=lambda: True,
        backup_file=backup_file,
        server_copy=ServerCopier(desk.data_dir, desk.clock, store),
        key_rotation=_Refused("this desk works on its own file", PgDeskCode.NO_SERVER),
    )


def _parts(
    desk: FileAccess,
    store: SqlCipherStore | PgStore,
    closers: list[Callable[[], None]],
    **only: Any,
) -> FileParts:
    """The adapters both kinds of file share, and ``only`` what this kind has."""
    try:
        vouchers = StoreVoucherBook(store)
        replica = ReplicaRegistry(store, desk.clock, verifier=desk.verifier)
        # art. 20.3: who works the desk, audited in the file
        accounts = StoreAccounts(store, desk.clock, policy=_lockout(desk.settings))
    except BaseException:
        for closer in reversed(closers):
            closer()
        raise
    return FileParts(
        store=store,
        reads=store,
        replica=replica,
        reprints=store,
        vouchers=vouchers,
        accounts=accounts,
        counters=partial(desk_counters, store),  # the desk window's panel
        purge=store.purge,
        closers=closers,
        **only,
    )


def _server_parts(desk: FileAccess, target: PgTarget) -> FileParts:
    """The adapters of the casino's server (arts. 154-155): one visitor file, one card
    sequence, one ban list and one audit trail for every desk and annex room."""
    from db.pg import desk as on_server
    from db.pg.rotation import KeyRotation, refresh_ring
    from db.pg.target import CERT_SUBDIR

    settings, clock = desk.settings, desk.clock
    folder = desk.data_dir / CERT_SUBDIR
    key = _file_key(demo=desk.demo, new_file=False, passphrase=desk.passphrase)
    keyring = _audit_keyring(desk.demo)
    audit_key = on_server.desk_audit_key(folder, demo=desk.demo, keyring=keyring, create=False)
    # the demo makes its invented file on an empty database; a real one is made by init
    store = on_server.open_desk_store(
        target,
        key,
        folder=folder,
        audit_key=audit_key,
        clock=clock,
        create=desk.demo,
        require_sync_standby=settings["database.require_sync_standby"],
    )
    # each probe also loads data key versions another desk stored (a re-encryption
    # begun there): this desk then seals under the newest and finds resealed rows
    link = on_server.ServerLink(
        target,
        refresh=lambda: refresh_ring(store, key),
        primary=store.primary,
        went_back=lambda: store.went_back is not None,
    )
    parts = _parts(
        desk,
        store,
        [store.close, link.close],
        may_purge=store.may_purge,  # only desks admitted to the purge group
        backup_file=_Refused(
            "the visitor file is on the casino's server: its backups are the server's "
            "(pg_dump or base backups by its administrator; every personal value is sealed)",
            PgDeskCode.ON_SERVER,
        ),
        server_copy=_Refused("this desk already works on the server", PgDeskCode.ON_SERVER),
        key_rotation=KeyRotation(store, key),
        server=link,
    )
    queue = folder / on_server.OFFLINE_QUEUE_FILE
    offline = on_server.OfflineVouchers(
        queue, key, settings["desk.id"], lambda: parts.vouchers, clock
    )
    return replace(parts, offline_vouchers=offline)


class _Refused:
    """What this kind of file cannot do: its backup, copy or key rotation refused."""

    def __init__(self, why: str, code: PgDeskCode) -> None:
        self._why, self._code = why, code

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise InvalidStateError(self._why, code=self._code)

    rotate = check = copy = __call__


def open_store(
    data_dir: Path, *, demo: bool, clock: Clock, passphrase: Callable[[], str] | None = None
) -> SqlCipherStore:
    """Open the visitor file of ``data_dir``. It never starts over on its own (art. 20.4):
    a real file is made only by ``init``, the demo's on first use. A folder whose file is
    missing, emptied or replaced is refused before any key is asked."""
    path = data_dir / DB_FILE
    preflight(path, create=demo)
    key = _file_key(demo=demo, new_file=False, passphrase=passphrase)
    if demo:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return SqlCipherStore.open(
        path, key, create=demo, clock=clock, audit_keyring=_audit_keyring(demo)
    )


def _audit_keyring(demo: bool) -> KeyringBackend | None:
    """The audit key's keyring: the OS's for a real file (else ADMISSION_AUDIT_KEY or the
    key file beside it); the demo uses its key file."""
    return None if demo else system_keyring()


def init_file(
    data_dir: Path,
    settings: Settings,
    *,
    demo: bool,
    clock: Clock,
    adopt: bool = False,
    passphrase: Callable[[], str] | None = None,
) -> str:
    """``init``: create the visitor file and its marker (audited), or with ``adopt``
    write the marker of the file already there after a full check; its id. On a server:
    the file in an empty database (the casino's first desk), its id the database's."""
    target = target_of(data_dir, settings)
    if target is not None:
        if adopt:
            raise InvalidStateError(
                "adopt is for the desk's own file, not the server", code=PgDeskCode.ON_SERVER
            )
        from db.pg.desk import desk_audit_key, open_desk_store
        from db.pg.target import CERT_SUBDIR

        folder = data_dir / CERT_SUBDIR
        key = _file_key(demo=demo, new_file=True, passphrase=passphrase)
        audit_key = desk_audit_key(folder, demo=demo, keyring=_audit_keyring(demo), create=True)
        with open_desk_store(
            target, key, folder=folder, audit_key=audit_key, clock=clock, create=True
        ) as server:
            return server.database_id
    path = data_dir / DB_FILE
    if not adopt:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        refuse_existing(path)  # before a keyring is asked for a new key
    key = _file_key(demo=demo, new_file=not adopt, passphrase=passphrase)
    act = SqlCipherStore.adopt if adopt else SqlCipherStore.create
    with act(path, key, clock=clock, audit_keyring=_audit_keyring(demo)) as store:
        return store.file_id


@dataclass(frozen=True)
class ServerCopier:
    """``db copy-to-server`` (arts. 154-155): the server is keyed from this desk's file key,
    as its desks will be, and takes the file's audit key, so the trail is carried entry
    by entry and heads printed before the move still anchor it."""

    data_dir: Path
    clock: Clock
    store: SqlCipherStore

    def _target(self, url: str) -> Any:
        from db.pg.target import CERT_SUBDIR, TargetSource, parse_url

        return parse_url(url, source=TargetSource.SETTINGS, cert_dir=self.data_dir / CERT_SUBDIR)

    def check(self, url: str) -> str:
        return str(self._target(url).describe())

    def copy(
        self, url: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> tuple[bool, dict[str, object]]:
        from db.pg.copy_file import CopyCode, CopyProgress, copy_to_server, source_audit_key
        from db.pg.store import PgStore

        target = self._target(url)
        key = _file_key(demo=False, new_file=False)

        def step(done: CopyProgress) -> None:
            progress(f"copied {done.step}: {done.rows} (batch {done.batches})")

        audit_key = source_audit_key(self.store)
        with PgStore.open(
            target.conninfo(), key, audit_key=audit_key, create=True, clock=self.clock
        ) as server:
            try:
                report = copy_to_server(self.store, server, batch=batch, progress=step, actor=actor)
            except StoreError as refused:
                if isinstance(refused.code, CopyCode):
                    raise InvalidStateError(str(refused), code=refused.code) from refused
                raise
            answer = {"target": target.describe(), "database_id": server.database_id}
        return bool(report.ok), {**answer, **report.as_dict()}  # as JSON by ui.cli.db_server


def restore_file(
    data_dir: Path,
    settings: Settings,
    source: Path,
    *,
    demo: bool,
    clock: Clock,
    accept_loss: Callable[[RestoreLoss, AccountService], str] | None = None,
) -> RestoreInfo:
    """``restore``: the backup becomes this folder's visitor file after every check (key,
    casino, integrity, audit chain); refused in a folder holding a file or on a server
    desk. A backup older than the folder's record needs ``accept_loss``: the director
    signs in on the backup's own accounts (the live ones went with the lost file)."""
    if target_of(data_dir, settings) is not None:
        raise InvalidStateError(
            "this desk works on the casino's server: a backup of a desk's file is restored "
            "on a desk of its own file, then moved with db copy-to-server",
            code=PgDeskCode.ON_SERVER,
        )
    key = _file_key(demo=demo, new_file=False)

    def signed(loss: RestoreLoss, copy: SqlCipherStore) -> str:
        assert accept_loss is not None
        return accept_loss(loss, StoreAccounts(copy, clock, policy=_lockout(settings)))

    folder = settings["printer.pdf_folder"]
    return restore(
        source,
        data_dir,
        key,
        casino_id=settings["casino.id"],
        audit_keyring=_audit_keyring(demo),
        accept_loss=None if accept_loss is None else signed,
        card_folders=[data_dir / "cards", *([Path(folder)] if folder else [])],
    )


def _file_key(*, demo: bool, new_file: bool, passphrase: Callable[[], str] | None = None) -> DbKey:
    """The demo's public passphrase, or the real key (a keyring invents one only for a
    new file), else the window's ``passphrase``, else the terminal's."""
    if demo and not os.environ.get("ADMISSION_DB_KEY"):
        return DbKey.from_passphrase(DEMO_PASSPHRASE, source="demo")
    if passphrase is None and sys.stdin.isatty():
        prompt = "Clave del fichero de visitantes / visitor-file passphrase: "
        passphrase = partial(getpass.getpass, prompt)
    return resolve_key(database_exists=not new_file, ask_passphrase=passphrase)
