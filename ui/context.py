"""What every command and the window receive: one typed context, built by ``main.py``.

``main.build_context`` (the composition root, STYLE.md rule 1) opens the visitor file
and builds every adapter and service once; the command handlers (``ui/cli``) and the
window receive the result and never construct an adapter themselves. Two levels:

* :class:`Tools` - what needs no visitor file: settings, clock and the device
  factories (``parse-mrz``, ``read-document``, ``watch-document``).
* :class:`AppContext` - the tools plus the open file and the services over it.

The concrete types are named here, so handlers are type-checked against the real
adapters; only ``main.py`` imports and constructs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from admission.errors import ConfigError
from admission.ports import Clock, madrid_date
from admission.reports import ExportTarget, ReportService
from admission.settings import Settings

if TYPE_CHECKING:
    from admission.counters import CounterReader
    from admission.desk import AdmissionDesk
    from admission.devices import Camera, CardPrinter, DeviceStatus, DocumentReader, SoundPlayer
    from admission.registry.policy import RegistryPolicy
    from admission.retention_sweep import RetentionSweep
    from db.accounts import SqlAccounts
    from db.backup import BackupInfo, KnownBackup, RestoreInfo
    from db.registry_replica import ReplicaRegistry
    from db.reprint_queue import SqlReprintQueue
    from db.store import SqlCipherStore
    from db.voucher_book import SqlVoucherBook
    from hardware.mrz.live import LiveMrzReader
    from hardware.mrz.reader import MrzReader
    from hardware.printer.card_files import CardFiles
    from hardware.printer.desk_documents import DeskDocuments
    from hardware.printer.service import CardPrintService
    from hardware.registry.sync import RegistrySync

__all__ = ["AppContext", "Devices", "FileInit", "ServerCopy", "Tools"]


class FileInit(Protocol):
    """Creates the visitor file of the data folder - the explicit act of ``init``
    (art. 20.4) - or with ``adopt`` writes the marker of the file already there; returns
    the file id. Made by the composition root."""

    def __call__(self, *, adopt: bool = False) -> str: ...


def _no_file_init(*, adopt: bool = False) -> str:
    raise ConfigError("no visitor-file factory was given to these tools")


def _no_restore(source: Path) -> RestoreInfo:
    raise ConfigError("no restore was given to these tools")


def _no_backup(out: Path, actor: str) -> BackupInfo:
    raise ConfigError("no backup was given to this context")


def _no_backups_listed(now: datetime) -> list[KnownBackup]:
    return []


class ServerCopy(Protocol):
    """Copies the open visitor file onto a PostgreSQL server and verifies it (arts.
    154-155: the desks of one casino share one file). ``check(url)`` parses the server's
    URL and gives its log-safe description (``ConfigError`` with its code when the URL is
    refused); ``copy(url, batch, progress, actor)`` gives (verified, the report as JSON)
    and raises ``InvalidStateError`` with its code when the copy is refused. Made by the
    composition root."""

    def check(self, url: str) -> str: ...

    def copy(
        self, url: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> tuple[bool, dict[str, object]]: ...


class _NoServerCopy:
    def check(self, url: str) -> str:
        raise ConfigError("no server copy was given to this context")

    def copy(
        self, url: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> tuple[bool, dict[str, object]]:
        raise ConfigError("no server copy was given to this context")


@dataclass(frozen=True)
class Devices:
    """Factories of the device adapters, made by the composition root: a handler asks
    for a device when it needs one and gets the real one, or a fake in demo mode."""

    camera: Callable[[str], Camera]  # a camera index, a folder of images, a video, a URL
    still_reader: Callable[[], MrzReader]  # the MRZ of photos and scans
    live_reader: Callable[[], LiveMrzReader]  # the MRZ of a camera stream, fused
    serial_reader: Callable[[str, int], DocumentReader]  # port, baud
    replay_reader: Callable[[Sequence[Path]], DocumentReader]  # recorded bursts
    card_printer: Callable[[], CardPrinter]
    demo_camera: Callable[[Sequence[str], int], Camera]  # a document held still (demo)
    # the desk's tones (art. 21: a refusal is heard); given the window's system bell,
    # played when no sound program is found (None: no bell)
    sound: Callable[[Callable[[], None] | None], SoundPlayer]
    # the preflight of a printer chosen on the settings screen, before it is saved:
    # (backend "cups" | "qt" | "pdf-folder", queue or folder) -> its status
    printer_check: Callable[[str, str], DeviceStatus] | None = None


@dataclass(frozen=True)
class Tools:
    """Settings, clock and devices: enough for the commands that open no visitor file."""

    data_dir: Path
    settings: Settings
    clock: Clock
    devices: Devices
    demo: bool = False
    init_file: FileInit = _no_file_init  # only ``init`` calls it
    # ``restore``: a backup becomes this folder's visitor file (never over one there)
    restore_file: Callable[[Path], RestoreInfo] = _no_restore

    def today(self) -> date:
        """The Madrid date (ages, validity, two-digit years)."""
        return madrid_date(self.clock.now())


@dataclass
class AppContext:
    """The open visitor file and everything built over it, wired once."""

    tools: Tools
    store: SqlCipherStore
    desk: AdmissionDesk
    registry: RegistryPolicy  # online service and replica, fail closed (R1)
    replica: ReplicaRegistry  # with the snapshot signature verifier when configured
    registry_sync: RegistrySync | None  # pulls the change feed; None = replica only
    card_printing: CardPrintService
    card_files: CardFiles  # card PDFs of the CLI and the PDF-folder printer
    documents: DeskDocuments  # leaflet, regulation, voucher (art. 23.4, 25)
    retention: RetentionSweep  # six months (art. 20.4, R3)
    reprints: SqlReprintQueue
    vouchers: SqlVoucherBook
    accounts: SqlAccounts  # who works the desk: sign-in, idle lock, director (art. 20.3)
    counters: CounterReader  # the desk's counters at a time (run on the store worker)
    # the director's and the inspectors' reports and exports (arts. 14.1.b, 20.4)
    reports: ReportService
    # where an export goes: a file written whole or not at all (FileExportTarget)
    export_target: Callable[[Path], ExportTarget]
    closers: list[Callable[[], None]] = field(default_factory=list)
    # an encrypted copy of the open file, taken while the desk works (art. 20.4)
    backup_file: Callable[[Path, str], BackupInfo] = _no_backup
    # known backups past retention still present (they hold personal data too)
    stale_backups: Callable[[datetime], list[KnownBackup]] = _no_backups_listed
    # the open file copied onto the casino's PostgreSQL server, verified
    server_copy: ServerCopy = field(default_factory=_NoServerCopy)

    @property
    def settings(self) -> Settings:
        return self.tools.settings

    @property
    def clock(self) -> Clock:
        return self.tools.clock

    @property
    def devices(self) -> Devices:
        return self.tools.devices

    @property
    def demo(self) -> bool:
        return self.tools.demo

    @property
    def data_dir(self) -> Path:
        return self.tools.data_dir

    def card_code(self, number: int) -> str:
        """The signed code printed on card ``number`` (art. 22.4)."""
        from admission.cards.code import encode_card_code

        return encode_card_code(self.settings["casino.id"], number, self.store.secret("card_code"))

    def close(self) -> None:
        for closer in reversed(self.closers):
            closer()
        self.closers.clear()
