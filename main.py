#!/usr/bin/env python3
"""Admission desk - the composition root (STYLE.md rule 1).

It parses the command line, reads the settings, opens the encrypted visitor file,
builds the real or demo adapters (the visitor file's by ``db.desk_file``, the
devices' factories from ``hardware.devices``) and the services over them once
(:func:`build_context`), hands the typed context to the command's handler and maps
the answer to an exit code. ui/ constructs no adapter. Every command prints JSON on
stdout.

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
from dataclasses import replace
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from admission.atomic_file import OutputGuard
from admission.cards.catalogue import CardCatalogue
from admission.clock import (
    CLOCK_OVERRIDE_ENV,
    FUTURE_TOLERANCE,
    ClockCode,
    FixedClock,
    SystemClock,
)
from admission.desk import AdmissionDesk, DeskConfig
from admission.desk_ports import DeskFile, DeskReads
from admission.devices import Camera, CardPrinter, DeviceErrorCode
from admission.errors import (
    AdmissionError,
    ConfigError,
    DeviceError,
    StoreError,
    StoreErrorCode,
)
from admission.hours import ALWAYS_OPEN, parse_hours
from admission.leaflet import build_leaflet, leaflet_config_from_settings
from admission.ports import Clock
from admission.records import AuditHead
from admission.registry.policy import RegistryPolicy, RegistryPolicySettings
from admission.reports import CasinoInfo, ReportService
from admission.retention_sweep import RetentionSweep
from admission.settings import Settings
from admission.settings_record import record_outside_changes
from admission.verdict import AdmissionPolicy, Outcome
from db.backup import BACKUP_LIST, DB_FILE, stale_backups
from db.desk_file import FileAccess, FileParts, init_file, open_parts, restore_file
from db.file_guard import preflight
from db.issued import ISSUED_FILE
from db.keys import WindowPassphrase
from db.restore import sweep_leftovers
from hardware import devices
from hardware.printer.card_files import CardFiles
from hardware.printer.desk_documents import REGULATION, DeskDocuments
from hardware.printer.export_file import FileExportTarget
from hardware.printer.render import style_from_settings
from hardware.printer.reports import ReportlabRenderer
from hardware.printer.service import CardPresentation, CardPrintService
from ui.cli.args import parse_instant
from ui.cli.commands import FILE_COMMANDS, SUPPORT_COMMANDS, TOOL_COMMANDS
from ui.cli.demo import CAMERA_FRAMES, SEED
from ui.cli.result import (
    CliError,
    CommandResult,
    ExitCode,
    JsonArgumentParser,
    Payload,
    described,
)
from ui.cli.support import SupportInputs
from ui.context import AppContext, Closers, Devices, Tools
from ui.log_file import LOG_DIR, install_desk_log

if TYPE_CHECKING:
    from admission.registry.snapshot import SignatureVerifier
    from ui.desk.chip_reading import ChipStation
    from ui.desk.demo_scenario import DemoDevices

APP_NAME = "admission-desk"
SETTINGS_FILE = "settings.json"
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
    parts = open_parts(
        FileAccess(
            tools.data_dir,
            tools.settings,
            tools.clock,
            tools.demo,
            tools.file_passphrase,
            _replica_verifier(tools.settings),
            outputs_of(tools.data_dir),
        )
    )
    try:
        return _wire(tools, parts)
    except BaseException:
        for closer in reversed(parts.closers):
            closer()
        raise


def _replica_verifier(settings: Settings) -> SignatureVerifier | None:
    if not settings["registry.public_key"]:
        return None
    from hardware.registry.signature import Ed25519Verifier

    return Ed25519Verifier.from_text(settings["registry.public_key"])


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
        stale_backups=lambda now: stale_backups(tools.data_dir, now, desk.config.retention_months),
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
# the backup list, the high-water marks, the card PDFs, the log (ui.log_file), the
# floor page's CA and keys (ui.floor.certs.TLS_FOLDER, art. 22.4), and a
# server desk's certificates, database id and offline vouchers (db.pg.target.CERT_SUBDIR,
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
    LOG_DIR,
    "floor-tls",
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
            chip_unverifiable_outcome=Outcome(settings["admission.chip_unverifiable"]),
        ),
        hours=parse_hours(settings["hours"], holidays) if settings["hours"] else ALWAYS_OPEN,
    )


def _card_presentation(tools: Tools, store: DeskFile, desk: AdmissionDesk) -> CardPresentation:
    settings = tools.settings
    catalogue = desk.config.catalogue
    return CardPresentation(
        casino_name=settings["casino.name"],
        casino_id=desk.config.casino_id,
        code_key=store.secret("card_code"),
        type_labels={code: t.label_es for code, t in catalogue.types.items()},
        special_types=frozenset(c for c, t in catalogue.types.items() if t.kind.special),
        signer=partial(store.signed_card_code, desk.config.casino_id),  # art. 22.4
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
            return devices.printer("cups", settings[setting], tools.data_dir)
        return tools.devices.card_printer()

    return DeskDocuments(
        leaflet=lambda: build_leaflet(leaflet_config_from_settings(settings.as_dict())),
        leaflet_printer=lambda: queue_or_card_printer("printer.leaflet"),
        voucher_printer=lambda: queue_or_card_printer("printer.receipt"),
        regulation_path=Path(settings["leaflet.regulation_path"] or REGULATION),
    )


def _devices(settings: Settings, data_dir: Path, demo: bool) -> Devices:
    return Devices(
        camera=devices.camera,
        still_reader=devices.still_reader,
        live_reader=devices.live_reader,
        serial_reader=devices.serial_reader,
        replay_reader=devices.replay_reader,
        card_printer=partial(devices.card_printer, settings, data_dir, demo),
        demo_camera=_demo_camera,
        sound=devices.sound,
        printer_check=partial(devices.printer_check, data_dir),
        online_registry=devices.online_registry,
        portrait=devices.portrait_cutter,
        chip_station=partial(_chip_station, settings, data_dir, demo),
    )


def _chip_station(
    settings: Settings, data_dir: Path, demo: bool, ctx: AppContext
) -> ChipStation | None:
    """The chip reader of ``chip.reader`` (PC/SC) with the imported master list as its
    trust, loaded once here from the file (art. 23.1); the demo's virtual chips of its
    invented documents; None when no reader is configured."""
    if demo:
        from hardware.generators.demo_chips import DemoChipStation

        return DemoChipStation(now=ctx.clock.now())
    name = str(settings["chip.reader"])
    if not name:
        return None
    from hardware.chip.masterlist import MasterListCode, audited_digest, trust_state
    from hardware.chip.pcsc import PcscChipReader
    from hardware.chip.reader import ReaderStation

    audited = audited_digest(ctx.store)  # type: ignore[arg-type]
    state = trust_state(data_dir, audited, ctx.clock.now())
    trust = state.trust

    def trust_warning() -> str:
        """The status bar's word on the list: missing, swapped, or gone stale while the
        desk runs (a stale list is still used; import a newer one)."""
        if state.master_list is not None:
            stale = state.master_list.is_stale(ctx.clock.now())
            return MasterListCode.STALE.value if stale else ""
        return state.code.value if state.code is not None else ""

    reader = PcscChipReader("" if name == "*" else name)
    return ReaderStation(reader, lambda: trust, trust_warning=trust_warning)


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
        "--version",
        action="store_true",
        help="print the version and exit (with --verbose: what this build was made from)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="with --version: the build's inputs as JSON"
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
    for support in SUPPORT_COMMANDS.values():
        support.arguments(sub.add_parser(support.name, parents=[common], help=support.help), common)
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
    if args.command in SUPPORT_COMMANDS:  # made even when the settings or the file fail
        support = support_inputs(data_dir_of(args, demo=demo), clock=clock, demo=demo)
        return SUPPORT_COMMANDS[args.command].run(args, support)
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


def support_inputs(data_dir: Path, *, clock: Clock | None, demo: bool) -> SupportInputs:
    """What ``support-bundle`` reads (ui.cli.support): the tools when the settings can be
    read, the audit head through the visitor file's own adapter, never more of the file."""
    tools: Tools | None = None
    why: str | None = None
    try:
        tools = build_tools(data_dir, clock=clock, demo=demo)
    except AdmissionError as exc:
        why = str(exc.code)
    server = tools is not None and bool(tools.settings["database.url"])

    def audit_head() -> AuditHead:
        if tools is None:
            raise ConfigError("the settings could not be read")
        if not server:  # the demo's file is made on first use: never by a support bundle
            preflight(data_dir / DB_FILE, create=False)
        access = FileAccess(
            data_dir, tools.settings, tools.clock, demo, None, None, outputs_of(data_dir)
        )
        parts = open_parts(access)
        try:
            return parts.store.head()
        finally:
            for closer in reversed(parts.closers):
                closer()

    def file_size() -> int | None:
        path = data_dir / DB_FILE
        return None if server or not path.exists() else path.stat().st_size

    return SupportInputs(
        data_dir,
        data_dir / SETTINGS_FILE,
        tools,
        why,
        outputs_of(data_dir),
        audit_head,
        file_size,
        _engine_versions,
    )


def _engine_versions() -> dict[str, str]:
    """The native engines the desk runs on, as loaded (not as pinned)."""
    import cv2
    import PySide6
    import sqlcipher3
    from PySide6.QtCore import qVersion

    conn = sqlcipher3.connect(":memory:")
    try:
        cipher = conn.execute("PRAGMA cipher_version").fetchone()
    finally:
        conn.close()
    return {
        "sqlcipher": str(cipher[0]) if cipher else "",
        "sqlite": str(sqlcipher3.sqlite_version),
        "pyside6": str(PySide6.__version__),
        "qt": str(qVersion()),
        "opencv": str(cv2.__version__),
    }


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


def install_logging(args: argparse.Namespace) -> None:
    """WARNING and above on stderr, as always; INFO and above in the data folder's
    rotating log (``ui.log_file``), for the window and the command line alike."""
    root = logging.getLogger()
    before = set(root.handlers)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    for handler in root.handlers:
        if handler not in before:
            handler.setLevel(logging.WARNING)
    smoke = bool(getattr(args, "smoke", False)) or os.environ.get(SMOKE_ENV) == "1"
    demo = (
        args.command == "demo"
        or bool(getattr(args, "demo", False))
        or (args.command is None and smoke)
    )
    install_desk_log(data_dir_of(args, demo=demo))


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.version:  # before anything reads the settings or touches the data folder
        from ui.build_info import build_info, version_text

        if args.verbose:
            emit(build_info())
        else:
            print(version_text(), flush=True)
        return int(ExitCode.OK)
    install_logging(args)
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
