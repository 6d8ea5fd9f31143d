#!/usr/bin/env python3
"""Admission desk - the composition root (STYLE.md rule 1).

It parses the command line, reads the settings, opens the encrypted visitor file,
builds the real or demo adapters and the services over them once
(:func:`build_context`), hands the typed context to the command's handler and maps
the answer to an exit code. Nothing else constructs an adapter. Every command prints
JSON on stdout.

Exit codes (:class:`ui.cli.result.ExitCode`): 0 success / admitted; 1 refused or
invalid input; 2 usage error; 3 the visitor file or a device could not be used (wrong
key, damaged file, printer not found...).

Without a command it opens the desk window (``ui.desk.app``): ``python main.py`` on the real
file, ``python main.py --demo`` on the demo file with its scenario of invented visitors,
and ``--smoke`` (or ``ADMISSION_SMOKE=1``) runs one demo admission through the window
offscreen and exits 0, or 1 with a one-line reason. With no display it says so in one
line and exits 3.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from admission import desk_ports
from admission.accounts import AccountService, LockoutPolicy
from admission.atomic_file import OutputGuard
from admission.backups import BackupInfo, RestoreInfo
from admission.cards.catalogue import CardCatalogue
from admission.clock import (
    CLOCK_OVERRIDE_ENV,
    FUTURE_TOLERANCE,
    ClockCode,
    FixedClock,
    SystemClock,
)
from admission.desk import AdmissionDesk, DeskConfig
from admission.desk_ports import BackupFile, DeskFile, DeskReads, ReprintQueue, ServerCopy
from admission.devices import (
    Camera,
    CardPrinter,
    DeviceErrorCode,
    DeviceStatus,
    DocumentReader,
    SoundPlayer,
)
from admission.errors import (
    AdmissionError,
    DeviceError,
    InvalidStateError,
    StoreError,
    StoreErrorCode,
)
from admission.hours import ALWAYS_OPEN, parse_hours
from admission.leaflet import build_leaflet, leaflet_config_from_settings
from admission.ports import Clock
from admission.registry.policy import RegistryPolicy, RegistryPolicySettings
from admission.registry.replica import RegistryReplica
from admission.reports import CasinoInfo, ReportService
from admission.restore_loss import RestoreLoss
from admission.retention_sweep import RetentionSweep, VoucherPurge
from admission.settings import Settings
from admission.settings_record import record_outside_changes
from admission.verdict import AdmissionPolicy, Outcome
from admission.vouchers.model import VoucherBook
from admission.vouchers.offline import OfflineVouchers
from db.accounts import StoreAccounts
from db.backup import BACKUP_LIST, backup, stale_backups
from db.desk_counters import desk_counters
from db.file_guard import preflight, refuse_existing
from db.issued import ISSUED_FILE
from db.keys import DbKey, KeyringBackend, WindowPassphrase, resolve_key, system_keyring
from db.pg.codes import PgDeskCode
from db.registry_replica import ReplicaRegistry
from db.reprint_queue import UnprintedCards
from db.restore import restore, sweep_leftovers
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook
from hardware.printer.card_files import CardFiles
from hardware.printer.desk_documents import REGULATION, DeskDocuments
from hardware.printer.export_file import FileExportTarget
from hardware.printer.render import style_from_settings
from hardware.printer.reports import ReportlabRenderer
from hardware.printer.service import CardPresentation, CardPrintService
from ui.cli.args import parse_instant, record_json
from ui.cli.commands import FILE_COMMANDS, TOOL_COMMANDS
from ui.cli.demo import CAMERA_FRAMES, SEED
from ui.cli.result import (
    CliError,
    CommandResult,
    ExitCode,
    JsonArgumentParser,
    Payload,
    described,
)
from ui.context import AppContext, Closers, Devices, Tools

if TYPE_CHECKING:
    from admission.counters import CounterReader
    from admission.records import PurgeReport
    from admission.registry.port import InterdictionRegistry
    from admission.registry.snapshot import SignatureVerifier
    from db.pg.target import PgTarget
    from hardware.mrz.live import LiveMrzReader
    from hardware.mrz.portrait import PortraitCutter
    from hardware.mrz.reader import MrzReader
    from ui.desk.demo_scenario import DemoDevices

APP_NAME = "admission-desk"
DB_FILE = "visitors.db"
SETTINGS_FILE = "settings.json"
# The demo file holds invented people only; its passphrase is public on purpose so
# that a newcomer reaches a working app without a keyring. Never used for real data.
DEMO_PASSPHRASE = "demo-only-not-for-real-visitors"
DATABASE_URL_ENV = "ADMISSION_DATABASE_URL"  # db.pg.target.ENV_VAR: wins over database.url
SMOKE_ENV = "ADMISSION_SMOKE"  # "1": the window's smoke run (one demo admission, then exit)

log = logging.getLogger("admission")


# -- the composition root -----------------------------------------------------------
def default_data_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def build_tools(
    data_dir: Path,
    *,
    clock: Clock | None = None,
    demo: bool = False,
    passphrase: Callable[[], str] | None = None,
) -> Tools:
    """Settings, clock and device factories: what every command needs. ``passphrase``
    gives the file's passphrase typed in the window (no keyring; db.keys.WindowPassphrase)."""
    settings = Settings.load(data_dir / SETTINGS_FILE)
    clock = clock or SystemClock()
    sweep_leftovers(data_dir)  # temporary copies of a killed restore (db/restore.py)
    return Tools(
        data_dir,
        settings,
        clock,
        _devices(settings, data_dir, demo),
        demo,
        init_file=partial(
            init_file, data_dir, settings, demo=demo, clock=clock, passphrase=passphrase
        ),
        restore_file=partial(restore_file, data_dir, settings, demo=demo, clock=clock),
        file_passphrase=passphrase,
    )


def build_context(tools: Tools) -> AppContext:
    """Open the visitor file - the desk's own SQLCipher file, or the casino's PostgreSQL
    server when the desk is pointed at one (arts. 154-155) - and build every service
    over it, once."""
    target = server_target(tools)
    parts = (
        _file_parts(
            tools,
            open_store(
                tools.data_dir,
                demo=tools.demo,
                clock=tools.clock,
                passphrase=tools.file_passphrase,
            ),
        )
        if target is None
        else _server_parts(tools, target)
    )
    try:
        return _wire(tools, parts)
    except BaseException:
        for closer in reversed(parts.closers):
            closer()
        raise


class DeskVouchers(VoucherBook, VoucherPurge, Protocol):
    """The voucher book of the file (art. 23.4) with its retention (art. 20.4)."""


@dataclass(frozen=True)
class FileParts:
    """The adapters of one kind of visitor file, for :func:`_wire`."""

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


def server_target(tools: Tools) -> PgTarget | None:
    """The server this desk works on (``ADMISSION_DATABASE_URL``, else the
    ``database.url`` setting), or None for the desk's own file."""
    return _target_of(tools.data_dir, tools.settings)


def _target_of(data_dir: Path, settings: Settings) -> PgTarget | None:
    """psycopg is loaded only when a server is named: a desk of its own file never
    loads it. A URL that cannot be used is refused; it never falls back to the file."""
    if not (os.environ.get(DATABASE_URL_ENV, "").strip() or settings["database.url"].strip()):
        return None
    from db.pg.target import CERT_SUBDIR, PgTarget, resolve_target

    found = resolve_target(settings["database.url"], os.environ, cert_dir=data_dir / CERT_SUBDIR)
    return found if isinstance(found, PgTarget) else None


def _replica_verifier(settings: Settings) -> SignatureVerifier | None:
    if not settings["registry.public_key"]:
        return None
    from hardware.registry.signature import Ed25519Verifier

    return Ed25519Verifier.from_text(settings["registry.public_key"])


def _lockout(settings: Settings) -> LockoutPolicy:
    return LockoutPolicy(
        settings["accounts.max_failures"], timedelta(minutes=settings["accounts.lock_minutes"])
    )


def _file_parts(tools: Tools, store: SqlCipherStore) -> FileParts:
    settings, clock = tools.settings, tools.clock
    try:
        vouchers = StoreVoucherBook(store)
        replica = ReplicaRegistry(store, clock, verifier=_replica_verifier(settings))
    except BaseException:
        store.close()
        raise

    outputs = outputs_of(tools.data_dir)

    def backup_file(out: Path, actor: str, *, force: bool = False) -> BackupInfo:
        return backup(
            store,
            out,
            casino_id=settings["casino.id"],
            actor=actor,
            now=clock.now(),
            guard=outputs,
            force=force,
        )

    return FileParts(
        store=store,
        reads=store,
        replica=replica,
        reprints=UnprintedCards(store),
        vouchers=vouchers,
        # art. 20.3: who works the desk, audited in the file
        accounts=StoreAccounts(store, clock, policy=_lockout(settings)),
        counters=partial(desk_counters, store),  # the desk window's panel
        purge=store.purge,
        closers=[store.close],
        may_purge=lambda: True,
        backup_file=backup_file,
        server_copy=ServerCopier(tools, store),
        key_rotation=_NoServerKeys(),
    )


def _server_parts(tools: Tools, target: PgTarget) -> FileParts:
    """The adapters of the casino's server (arts. 154-155): one visitor file, one card
    sequence, one ban list and one audit trail for every desk and annex room."""
    from db.pg.desk import (
        OFFLINE_QUEUE_FILE,
        OfflineVouchers,
        ServerLink,
        desk_audit_key,
        open_desk_store,
    )
    from db.pg.rotation import KeyRotation, refresh_ring
    from db.pg.target import CERT_SUBDIR

    settings, clock = tools.settings, tools.clock
    folder = tools.data_dir / CERT_SUBDIR
    key = _file_key(folder, demo=tools.demo, new_file=False, passphrase=tools.file_passphrase)
    audit_key = desk_audit_key(
        folder, demo=tools.demo, keyring=_audit_keyring(tools.demo), create=False
    )
    # the demo makes its invented file on an empty database; a real one is made by init
    store = open_desk_store(
        target, key, folder=folder, audit_key=audit_key, clock=clock, create=tools.demo
    )
    # each probe also loads data key versions another desk stored (a re-encryption
    # begun there): this desk then seals under the newest and finds resealed rows
    link = ServerLink(target, refresh=lambda: refresh_ring(store, key))
    closers: list[Callable[[], None]] = [store.close, link.close]
    try:
        vouchers = StoreVoucherBook(store)
        replica = ReplicaRegistry(store, clock, verifier=_replica_verifier(settings))
        accounts = StoreAccounts(store, clock, policy=_lockout(settings))
    except BaseException:
        for closer in reversed(closers):
            closer()
        raise

    return FileParts(
        store=store,
        reads=store,
        replica=replica,
        reprints=UnprintedCards(store),
        vouchers=vouchers,
        accounts=accounts,
        counters=partial(desk_counters, store),
        purge=store.purge,
        closers=closers,
        may_purge=store.may_purge,  # only desks admitted to the purge group
        backup_file=_on_server_refused,
        server_copy=_ServerCopyRefused(),
        key_rotation=KeyRotation(store, key),
        server=link,
        offline_vouchers=OfflineVouchers(
            folder / OFFLINE_QUEUE_FILE, key, settings["desk.id"], lambda: vouchers, clock
        ),
    )


def _on_server_refused(out: Path, actor: str, *, force: bool = False) -> BackupInfo:
    raise InvalidStateError(
        "the visitor file is on the casino's server: its backups are the server's "
        "(pg_dump or base backups by its administrator; every personal value is sealed)",
        code=PgDeskCode.ON_SERVER,
    )


class _NoServerKeys:
    """``db rotate-key`` on a desk of its own file (its key is the file's)."""

    def rotate(
        self, *, mode: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> dict[str, object]:
        raise InvalidStateError("this desk works on its own file", code=PgDeskCode.NO_SERVER)


class _ServerCopyRefused:
    """``db copy-to-server`` on a desk that already works on the server."""

    def check(self, url: str) -> str:
        raise InvalidStateError("this desk already works on the server", code=PgDeskCode.ON_SERVER)

    def copy(
        self, url: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> tuple[bool, dict[str, object]]:
        raise InvalidStateError("this desk already works on the server", code=PgDeskCode.ON_SERVER)


def _wire(tools: Tools, parts: FileParts) -> AppContext:
    settings, clock = tools.settings, tools.clock
    store = parts.store
    _record_outside_settings(tools, store)
    replica = parts.replica
    online = None
    sync = None
    if settings["registry.online_url"]:
        from hardware.registry.soap_client import client_from_settings
        from hardware.registry.sync import RegistrySync

        online = client_from_settings(settings, clock)
        sync = RegistrySync(online, replica, clock)
    registry = RegistryPolicy(
        clock,
        online=online,
        replica=replica,
        settings=_registry_settings(settings),
    )
    desk = AdmissionDesk(
        store=store,
        registry=registry,
        clock=clock,
        config=desk_config(settings),
        # a replay on a clock set by hand records in the past on purpose
        clock_guard=os.environ.get(CLOCK_OVERRIDE_ENV) != "1",
    )
    printing = _card_printing(tools, store, desk)
    card_files = CardFiles(
        tools.data_dir / "cards", lambda n: printing.render(printing.view_for(n)).pdf
    )
    reports = _report_service(settings, parts.reads, clock, desk)  # arts. 14.1.b, 20.4
    outputs = outputs_of(tools.data_dir)
    return AppContext(
        tools=tools,
        store=store,
        desk=desk,
        registry=registry,
        replica=replica,
        registry_sync=sync,
        card_printing=printing,
        card_files=card_files,
        documents=_desk_documents(tools),
        retention=RetentionSweep(
            parts.purge,
            store,
            parts.vouchers,
            card_files,
            clock,
            SystemClock(),
            desk.config.retention_months,
            automatic=parts.may_purge,
        ),
        reprints=parts.reprints,
        vouchers=parts.vouchers,
        accounts=parts.accounts,
        counters=parts.counters,
        reports=reports,
        export_target=partial(FileExportTarget, guard=outputs),
        reads=parts.reads,
        outputs=outputs,
        server=parts.server,
        offline_vouchers=parts.offline_vouchers,
        key_rotation=parts.key_rotation,
        closers=Closers(parts.closers),
        backup_file=parts.backup_file,
        stale_backups=lambda now: stale_backups(
            tools.data_dir, now, desk.config.retention_months
        ),
        server_copy=parts.server_copy,
        reconfigure=partial(_reconfigure, tools, store, desk, registry, printing, reports),
    )


def _report_service(
    settings: Settings, reads: DeskReads, clock: Clock, desk: AdmissionDesk
) -> ReportService:
    """The director's and the inspectors' reports (arts. 14.1.b, 20.4; GDPR art. 15)."""
    return ReportService(
        reads,
        clock,
        _report_renderer(desk),
        _casino_info(settings),
        # the CSV's headings and labels in the window's language, as it is at each export
        language=lambda: str(settings["ui.language"]),
    )


def _report_renderer(desk: AdmissionDesk) -> ReportlabRenderer:
    return ReportlabRenderer(
        card_labels={code: kind.label_es for code, kind in desk.config.catalogue.types.items()}
    )


def _casino_info(settings: Settings) -> CasinoInfo:
    return CasinoInfo(settings["casino.name"], settings["casino.id"], settings["casino.address"])


def _reconfigure(
    tools: Tools,
    store: DeskFile,
    desk: AdmissionDesk,
    registry: RegistryPolicy,
    printing: CardPrintService,
    reports: ReportService,
) -> None:
    """Saved settings take effect in the running desk, on the store worker between two
    evaluations: the hours and the last-hour rule (arts. 21.4, 27), the card types and
    prices (art. 23.2-3), the outcome of a register that cannot be checked and the
    replica's age (art. 20.2), the card's look, printer and casino name, the reports'
    casino. The keys declared ``restart`` (file, server, register client, accounts)
    wait for the next start."""
    settings = tools.settings
    running = desk.config  # the casino's and the desk's ids wait for the next start
    desk.config = replace(
        desk_config(settings), casino_id=running.casino_id, desk_id=running.desk_id
    )
    registry.reconfigure(_registry_settings(settings))
    printing.printer = tools.devices.card_printer()
    printing.style = style_from_settings(settings.as_dict(), demo=tools.demo)
    printing.use_presentation(_card_presentation(tools, store, desk))
    reports.reconfigure(_report_renderer(desk), _casino_info(settings))


def _record_outside_settings(tools: Tools, store: DeskFile) -> None:
    """Keys changed in settings.json since the chain's newest record of the settings -
    outside the settings screen - become an entry of the chain (art. 20.4). A file that
    takes no writes, or a login that may not write, leaves them to ``audit verify``
    (SETTINGS_UNRECORDED)."""
    if getattr(store, "damaged", False):
        return
    try:
        record_outside_changes(store, tools.settings, tools.clock.now())
    except AdmissionError as exc:
        log.warning("the settings changed outside the window were not recorded: %s", exc.code)


def _registry_settings(settings: Settings) -> RegistryPolicySettings:
    return RegistryPolicySettings(
        max_replica_age=timedelta(hours=settings["registry.max_replica_age_hours"])
    )


# What the desk keeps, or may yet create, in its data folder: the visitor file's names
# (its WAL, SHM, journal, marker and audit key begin so), temporary files, the settings,
# the backup list, the high-water marks, the card PDFs, and a server desk's
# certificates, database id and offline vouchers (db.pg.target.CERT_SUBDIR,
# db.pg.desk.DATABASE_ID_FILE and OFFLINE_QUEUE_FILE: named here, not imported, to keep
# psycopg out of a file desk's start; tests/test_cli_outputs.py checks they agree).
DESK_OWN_NAMES = (
    DB_FILE,
    ".",
    SETTINGS_FILE,
    BACKUP_LIST,
    ISSUED_FILE,
    "cards",
    "postgresql",
    "database-id",
    "offline-vouchers.db",
    "demo.audit-key",
)


def outputs_of(data_dir: Path) -> OutputGuard:
    """Where a file the operator names may go (--out, the save dialogs): never over the
    visitor file nor anything of the desk's in its data folder (art. 20.4) - nor in the
    usual data folder when this desk works in another: the demo's lies inside it, and a
    --data-dir elsewhere must not reach the real file either."""
    usual = default_data_dir()
    return OutputGuard(data_dir, DESK_OWN_NAMES, others=(usual, usual / "demo"))


def desk_config(settings: Settings) -> DeskConfig:
    holidays = frozenset(date.fromisoformat(d) for d in settings["holidays"])
    return DeskConfig(
        casino_id=settings["casino.id"],
        desk_id=settings["desk.id"],
        catalogue=CardCatalogue.from_config(settings["cards.types"], settings["cards.default"]),
        policy=AdmissionPolicy(
            unverifiable_outcome=Outcome(settings["admission.unverifiable"]),
            stop_last_hour=settings["admission.stop_last_hour"],
        ),
        hours=parse_hours(settings["hours"], holidays) if settings["hours"] else ALWAYS_OPEN,
    )


def open_store(
    data_dir: Path, *, demo: bool, clock: Clock, passphrase: Callable[[], str] | None = None
) -> SqlCipherStore:
    """Open the visitor file of ``data_dir``. It never starts over on its own (art.
    20.4): a real file is created only by ``init`` (:func:`init_file`); the demo creates
    its own (invented people, its own folder) on first use. A folder without a file, or
    whose file is missing, emptied or replaced, is refused before any key is asked."""
    path = data_dir / DB_FILE
    preflight(path, create=demo)
    key = _file_key(path, demo=demo, new_file=False, passphrase=passphrase)
    if demo:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return SqlCipherStore.open(
        path, key, create=demo, clock=clock, audit_keyring=_audit_keyring(demo)
    )


def _audit_keyring(demo: bool) -> KeyringBackend | None:
    """Where the audit chain's key lives: the OS keyring for a real file (else the
    ADMISSION_AUDIT_KEY variable or the key file beside it); the demo uses its key file."""
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
    write the marker of the file already there after a full check; return its id. A
    desk pointed at a server creates the visitor file there, in an empty database (the
    first desk of the casino; the others only open it); its id is the database's."""
    target = _target_of(data_dir, settings)
    if target is not None:
        if adopt:
            raise InvalidStateError(
                "adopt is for the desk's own file, not the server", code=PgDeskCode.ON_SERVER
            )
        return _init_server(data_dir, target, demo=demo, clock=clock, passphrase=passphrase)
    path = data_dir / DB_FILE
    if not adopt:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        refuse_existing(path)  # before a keyring is asked for a new key
    key = _file_key(path, demo=demo, new_file=not adopt, passphrase=passphrase)
    act = SqlCipherStore.adopt if adopt else SqlCipherStore.create
    with act(path, key, clock=clock, audit_keyring=_audit_keyring(demo)) as store:
        return store.file_id


def _init_server(
    data_dir: Path,
    target: PgTarget,
    *,
    demo: bool,
    clock: Clock,
    passphrase: Callable[[], str] | None = None,
) -> str:
    from db.pg.desk import desk_audit_key, open_desk_store
    from db.pg.target import CERT_SUBDIR

    folder = data_dir / CERT_SUBDIR
    key = _file_key(folder, demo=demo, new_file=True, passphrase=passphrase)
    audit_key = desk_audit_key(folder, demo=demo, keyring=_audit_keyring(demo), create=True)
    with open_desk_store(
        target, key, folder=folder, audit_key=audit_key, clock=clock, create=True
    ) as store:
        return store.database_id


class ServerCopier:
    """``db copy-to-server``: the open file onto the casino's PostgreSQL server (arts.
    154-155), by :func:`db.pg.copy_file.copy_to_server`. The server store is keyed from
    this desk's file key (``ADMISSION_DB_KEY`` or the OS keyring, as the desks on the
    server will be) and takes the file's audit key, so the trail is carried entry by
    entry and heads printed before the move still anchor it. psycopg is loaded only
    here: the desk's other commands never load it."""

    def __init__(self, tools: Tools, store: SqlCipherStore) -> None:
        self._tools = tools
        self._store = store

    def _target(self, url: str) -> Any:
        from db.pg.target import CERT_SUBDIR, TargetSource, parse_url

        return parse_url(
            url, source=TargetSource.SETTINGS, cert_dir=self._tools.data_dir / CERT_SUBDIR
        )

    def check(self, url: str) -> str:
        return str(self._target(url).describe())

    def copy(
        self, url: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> tuple[bool, dict[str, object]]:
        from db.pg.copy_file import CopyCode, CopyProgress, copy_to_server, source_audit_key
        from db.pg.store import PgStore

        target = self._target(url)
        key = resolve_key(
            database_exists=True, ask_passphrase=_ask_passphrase if sys.stdin.isatty() else None
        )

        def step(done: CopyProgress) -> None:
            progress(f"copied {done.step}: {done.rows} (batch {done.batches})")

        with PgStore.open(
            target.conninfo(),
            key,
            audit_key=source_audit_key(self._store),
            create=True,
            clock=self._tools.clock,
        ) as server:
            try:
                report = copy_to_server(
                    self._store, server, batch=batch, progress=step, actor=actor
                )
            except StoreError as refused:
                if isinstance(refused.code, CopyCode):
                    raise InvalidStateError(str(refused), code=refused.code) from refused
                raise
            answer: dict[str, object] = {
                "target": target.describe(),
                "database_id": server.database_id,
            }
        answer.update(record_json(report))
        return bool(report.ok), answer


def restore_file(
    data_dir: Path,
    settings: Settings,
    source: Path,
    *,
    demo: bool,
    clock: Clock,
    accept_loss: Callable[[RestoreLoss, AccountService], str] | None = None,
) -> RestoreInfo:
    """``restore``: the backup becomes this folder's visitor file, after every check
    (key, casino, integrity, audit chain); a folder that holds a file is refused, and so
    is a desk that works on the server (it would not use the file). A backup older than
    the folder's record needs ``accept_loss``: the director signs in on the backup's own
    accounts (the live ones went with the lost file)."""
    if _target_of(data_dir, settings) is not None:
        raise InvalidStateError(
            "this desk works on the casino's server: a backup of a desk's file is restored "
            "on a desk of its own file, then moved with db copy-to-server",
            code=PgDeskCode.ON_SERVER,
        )
    key = _file_key(data_dir / DB_FILE, demo=demo, new_file=False)

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


def _file_key(
    path: Path, *, demo: bool, new_file: bool, passphrase: Callable[[], str] | None = None
) -> DbKey:
    """The demo's public passphrase, or the real key; a keyring invents a key only for
    a file being created. Without either, the passphrase the window asked for
    (``passphrase``), else the terminal's."""
    if demo and not os.environ.get("ADMISSION_DB_KEY"):
        return DbKey.from_passphrase(DEMO_PASSPHRASE, source="demo")
    if passphrase is None and sys.stdin.isatty():
        passphrase = _ask_passphrase
    return resolve_key(database_exists=not new_file, ask_passphrase=passphrase)


def _ask_passphrase() -> str:
    import getpass

    return getpass.getpass("Clave del fichero de visitantes / visitor-file passphrase: ")


def _card_presentation(tools: Tools, store: DeskFile, desk: AdmissionDesk) -> CardPresentation:
    settings = tools.settings
    catalogue = desk.config.catalogue
    return CardPresentation(
        casino_name=settings["casino.name"],
        casino_id=desk.config.casino_id,
        code_key=store.secret("card_code"),
        type_labels={code: t.label_es for code, t in catalogue.types.items()},
        special_types=frozenset(c for c, t in catalogue.types.items() if t.kind.special),
    )


def _card_printing(tools: Tools, store: DeskFile, desk: AdmissionDesk) -> CardPrintService:
    settings = tools.settings
    presentation = _card_presentation(tools, store, desk)
    return CardPrintService(
        store,
        tools.devices.card_printer(),
        tools.clock,
        style=style_from_settings(settings.as_dict(), demo=tools.demo),
        job_timeout=settings["printer.job_timeout_seconds"],
        visitors=store,
        presentation=presentation,
    )


def _desk_documents(tools: Tools) -> DeskDocuments:
    settings, demo = tools.settings, tools.demo

    def queue_or_card_printer(setting: str) -> CardPrinter:
        if not demo and settings[setting]:
            from hardware.printer.cups import CupsPrinter

            return CupsPrinter(settings[setting])
        return tools.devices.card_printer()

    return DeskDocuments(
        leaflet=lambda: build_leaflet(leaflet_config_from_settings(settings.as_dict())),
        leaflet_printer=lambda: queue_or_card_printer("printer.leaflet"),
        voucher_printer=lambda: queue_or_card_printer("printer.receipt"),
        regulation_path=Path(settings["leaflet.regulation_path"] or REGULATION),
    )


def _devices(settings: Settings, data_dir: Path, demo: bool) -> Devices:
    def card_printer() -> CardPrinter:
        """The configured card printer; the demo always prints to a PDF folder."""
        backend = "pdf-folder" if demo else settings["printer.backend"]
        if backend == "cups":
            from hardware.printer.cups import CupsPrinter

            return CupsPrinter(settings["printer.card"])
        if backend == "qt":
            from hardware.printer.qt import QtPrinter

            return QtPrinter(settings["printer.card"])
        from hardware.printer.pdf_folder import PdfFolderPrinter

        folder = settings["printer.pdf_folder"]
        return PdfFolderPrinter(Path(folder) if folder else data_dir / "cards")

    return Devices(
        camera=_camera,
        still_reader=_still_reader,
        live_reader=_live_reader,
        serial_reader=_serial_reader,
        replay_reader=_replay_reader,
        card_printer=card_printer,
        demo_camera=_demo_camera,
        sound=_sound,
        printer_check=partial(_printer_check, data_dir),
        online_registry=_online_registry,
        portrait=_portrait_cutter,
    )


def _online_registry(settings: Settings) -> InterdictionRegistry:
    """The RIAJ's online client of ``settings`` (the wizard's test, art. 20.2)."""
    from hardware.registry.soap_client import client_from_settings

    return client_from_settings(settings)


def _printer_check(data_dir: Path, backend: str, target: str) -> DeviceStatus:
    """The preflight answer of a printer chosen on the settings screen, before it is
    saved: ``backend`` "cups" or "qt" with the queue ``target``, else a PDF folder
    (``target``, or ``data_dir/cards`` when empty). Never raises for a device fault."""
    printer: CardPrinter
    try:
        if backend == "cups":
            from hardware.printer.cups import CupsPrinter

            printer = CupsPrinter(target)
        elif backend == "qt":
            from hardware.printer.qt import QtPrinter

            printer = QtPrinter(target)
        else:
            from hardware.printer.pdf_folder import PdfFolderPrinter

            printer = PdfFolderPrinter(Path(target) if target else data_dir / "cards")
        return printer.preflight().status
    except (DeviceError, OSError):
        return DeviceStatus.ERROR


def _camera(source: str) -> Camera:
    """A camera index, a folder of images, a video file (both replayed once), or a URL."""
    from hardware.camera.fake import ImageFolderCamera, VideoFileCamera
    from hardware.camera.opencv import OpenCvCamera

    if source.isdigit():
        return OpenCvCamera(int(source))
    path = Path(source)
    if path.is_dir():
        return ImageFolderCamera(path, loop=False)
    if path.is_file():
        return VideoFileCamera(path, loop=False)
    return OpenCvCamera(source)


def _still_reader() -> MrzReader:
    from hardware.mrz.reader import MrzReader

    return MrzReader()


def _live_reader() -> LiveMrzReader:
    from hardware.mrz.live import LiveMrzReader

    return LiveMrzReader()


def _portrait_cutter() -> PortraitCutter:
    from hardware.mrz.portrait import PortraitCutter

    return PortraitCutter()


def _serial_reader(port: str, baud: int) -> DocumentReader:
    from hardware.scanner.serial_reader import SerialDocumentReader

    return SerialDocumentReader(port, baudrate=baud)


def _replay_reader(recordings: Sequence[Path]) -> DocumentReader:
    """Replays recorded bursts at once (raises OSError/ValueError for a bad file)."""
    from hardware.scanner.fake import FakeDocumentReader, Pause, load_recording

    script = [step for path in recordings for step in (load_recording(path), Pause(0.0))]
    return FakeDocumentReader(script, sleep=lambda _s: None)


def _sound(beep: Callable[[], None] | None) -> SoundPlayer:
    """The desk's tones (art. 21); ``beep`` when the machine has no sound program."""
    from hardware.sound import TonePlayer

    return TonePlayer(beep=beep)


def _demo_camera(lines: Sequence[str], index: int) -> Camera:
    """A fake camera showing ``lines`` printed on an invented document, held still."""
    from hardware.camera import array_to_frame
    from hardware.camera.fake import FakeCamera
    from hardware.generators import synthetic

    held = synthetic.sequence(SEED, index, CAMERA_FRAMES, lines=list(lines), pitch_px=12.0)
    return FakeCamera([array_to_frame(f.image, k / 15) for k, f in enumerate(held)])


def _demo_devices(tools: Tools) -> DemoDevices:
    """The window's demo devices: a camera replaying the demo queue (each document drawn
    by ``Devices.demo_camera`` when it is due) and a document reader idle until asked.
    Each launch shows a new invented adult first (one valid card per person, art. 22)."""
    import secrets

    from ui.desk.demo_scenario import DemoDevices, DemoReader, ScenarioCamera, demo_cases

    salt = secrets.randbelow(1_000_000)

    def open_camera() -> Camera:
        return ScenarioCamera(
            lambda round_: demo_cases(tools.today(), round_, salt=salt),
            tools.devices.demo_camera,
        )

    return DemoDevices(open_camera=open_camera, reader=DemoReader(), salt=salt)


# -- the command line ---------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    common = JsonArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        type=Path,
        default=argparse.SUPPRESS,
        help="folder of the visitor file (default: the user data folder)",
    )
    common.add_argument(
        "--demo",
        action="store_true",
        default=argparse.SUPPRESS,
        help="demo mode: invented data, fake devices, DEMO banner",
    )
    parser = JsonArgumentParser(
        prog="main.py", parents=[common], description="Casino admission desk (Decreto 58/2006)"
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="open the demo window offscreen, admit one demo visitor through it, exit",
    )
    # no command: the desk window (``--demo``: on the demo file)
    sub = parser.add_subparsers(dest="command", required=False)
    for tool in TOOL_COMMANDS.values():
        tool.arguments(sub.add_parser(tool.name, parents=[common], help=tool.help), common)
    for command in FILE_COMMANDS.values():
        command.arguments(sub.add_parser(command.name, parents=[common], help=command.help), common)
    return parser


def data_dir_of(args: argparse.Namespace, *, demo: bool) -> Path:
    """``--data-dir``, else the user data folder; the demo always has its own folder so
    invented visitors never share a file (or a key) with real ones."""
    explicit = getattr(args, "data_dir", None)
    if explicit is not None:
        return Path(explicit)
    base = default_data_dir()
    return base / "demo" if demo else base


def dispatch(args: argparse.Namespace) -> CommandResult:
    """Build what the command needs, run it, close what was opened."""
    clock: Clock | None = None
    if getattr(args, "at", None) is not None:
        try:
            at = parse_instant(args.at)
        except (ValueError, OverflowError):
            return ExitCode.USAGE, described(CliError.BAD_INSTANT, "--at must be ISO-8601")
        # A typo in the year must not run the desk a year ahead: the purge would erase
        # the file (art. 20.4). Tests, demos and replays set ADMISSION_CLOCK_OVERRIDE=1.
        ahead = at - SystemClock().now()
        if ahead > FUTURE_TOLERANCE and os.environ.get(CLOCK_OVERRIDE_ENV) != "1":
            return ExitCode.USAGE, described(
                ClockCode.FUTURE_INSTANT, f"--at is ahead of this computer's clock by {ahead}"
            )
        clock = FixedClock(at)
    demo = args.command == "demo" or bool(getattr(args, "demo", False))
    tools = build_tools(data_dir_of(args, demo=demo), clock=clock, demo=demo)
    if args.command in TOOL_COMMANDS:
        return TOOL_COMMANDS[args.command].run(args, tools)
    ctx = build_context(tools)
    try:
        if args.command != "purge":
            ctx.retention.purge_if_due()
        return FILE_COMMANDS[args.command].run(args, ctx)
    finally:
        ctx.close()


def exit_code_of(error: AdmissionError) -> ExitCode:
    """The visitor file (its key included) or a device failed: 3; anything else the
    domain refused (an unknown card type, no such card, a card already voided...): 1."""
    if isinstance(error, StoreError | DeviceError) or isinstance(
        error.code, StoreErrorCode | DeviceErrorCode
    ):
        return ExitCode.UNAVAILABLE
    return ExitCode.REFUSED


def emit(payload: Payload) -> None:
    try:
        print(json.dumps(payload, ensure_ascii=False, indent=2, default=str), flush=True)
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to tell it
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def start_window(args: argparse.Namespace) -> int:
    """No command: the desk window. The smoke run is always a demo (it never touches a
    real visitor file) and always offscreen unless a platform was chosen."""
    smoke = bool(getattr(args, "smoke", False)) or os.environ.get(SMOKE_ENV) == "1"
    demo = smoke or bool(getattr(args, "demo", False))
    if smoke:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from ui.desk.app import AppStart, no_display_line, run_window

    missing = no_display_line()
    if missing is not None:
        print(missing, file=sys.stderr)
        return int(ExitCode.UNAVAILABLE)
    data_dir = data_dir_of(args, demo=demo)
    passphrase = WindowPassphrase()  # the file's key without a keyring, in memory only
    return run_window(
        AppStart(
            build_tools=partial(build_tools, data_dir, demo=demo, passphrase=passphrase),
            build_context=build_context,
            demo=demo,
            smoke=smoke,
            demo_devices=_demo_devices if demo else None,
            passphrase=passphrase,
        )
    )


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command is None:
        return start_window(args)
    try:
        code, payload = dispatch(args)
    except AdmissionError as exc:
        code, payload = exit_code_of(exc), described(exc.code, str(exc))
    if payload is not None:
        emit(payload)
    return int(code)


if __name__ == "__main__":
    sys.exit(run())
