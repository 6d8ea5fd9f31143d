"""What every command and the window receive: one typed context, built by ``main.py``.

``main.build_context`` (the composition root, STYLE.md rule 1) opens the visitor file
and builds every adapter and service once; the command handlers (``ui/cli``) and the
window receive the result and never construct an adapter themselves. Two levels:

* :class:`Tools` - what needs no visitor file: settings, clock and the device
  factories (``parse-mrz``, ``read-document``, ``watch-document``).
* :class:`AppContext` - the tools plus the open file and the services over it.

The context names ports, not adapters: the visitor file is the desk's own SQLCipher
file or the casino's PostgreSQL server (arts. 154-155: several desks and annex rooms,
one file), and handlers and the window work the same on both. Only ``main.py`` imports
and constructs the adapters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from admission.accounts import AccountService
from admission.atomic_file import OutputGuard
from admission.backups import BackupInfo, KnownBackup, RestoreInfo
from admission.desk_ports import (
    BackupFile,
    CardFolder,
    CardPrinting,
    DeskFile,
    DeskPapers,
    DeskReads,
    ExportTargets,
    FileInit,
    KeyRotation,
    ReprintQueue,
    RestoreFile,
    ServerCopy,
    ServerLink,
    StaleBackups,
)
from admission.errors import ConfigError, NotFoundError
from admission.ports import Clock, madrid_date
from admission.reports import ReportService
from admission.restore_loss import RestoreLoss
from admission.settings import Settings
from admission.vouchers.model import VoucherBook
from admission.vouchers.offline import OfflineVouchers

if TYPE_CHECKING:
    from admission.counters import CounterReader
    from admission.desk import AdmissionDesk
    from admission.devices import Camera, CardPrinter, DeviceStatus, DocumentReader, SoundPlayer
    from admission.registry.policy import RegistryPolicy
    from admission.registry.port import InterdictionRegistry
    from admission.registry.replica import RegistryReplica, ReplicaSync
    from admission.retention_sweep import RetentionSweep
    from hardware.mrz.live import LiveMrzReader
    from hardware.mrz.portrait import PortraitCutter
    from hardware.mrz.reader import MrzReader
    from ui.desk.chip_reading import ChipStation

__all__ = ["AppContext", "Closers", "Devices", "Tools"]


def _no_file_init(*, adopt: bool = False) -> str:
    raise ConfigError("no visitor-file factory was given to these tools")


def _no_restore(
    source: Path, *, accept_loss: Callable[[RestoreLoss, AccountService], str] | None = None
) -> RestoreInfo:
    raise ConfigError("no restore was given to these tools")


def _no_backup(out: Path, actor: str, *, force: bool = False) -> BackupInfo:
    raise ConfigError("no backup was given to this context")


def _no_backups_listed(now: datetime) -> list[KnownBackup]:
    return []


def _nothing_to_reconfigure() -> None:
    return None


class _NoKeyRotation:
    def rotate(
        self, *, mode: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> dict[str, object]:
        raise ConfigError("no key rotation was given to this context")


class _NoServerCopy:
    def check(self, url: str) -> str:
        raise ConfigError("no server copy was given to this context")

    def copy(
        self, url: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> tuple[bool, dict[str, object]]:
        raise ConfigError("no server copy was given to this context")


class Closers:
    """What closes with the context (the file, the server's link...), the newest first,
    each once."""

    def __init__(self, closers: Iterable[Callable[[], None]] = ()) -> None:
        self._closers = list(closers)

    def close(self) -> None:
        while self._closers:
            self._closers.pop()()


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
    # the holder's portrait beside the MRZ the camera read (memory only); None: none
    portrait: Callable[[], PortraitCutter] | None = None
    # the RIAJ's online service as these settings describe it (art. 20.2), for the
    # first-run wizard's test before the desk is built over it
    online_registry: Callable[[Settings], InterdictionRegistry] | None = None
    # the documents' chip reader over the open file (its trust: the imported master
    # list); None when no reader is configured (chip.reader), the demo's virtual chips
    chip_station: Callable[[AppContext], ChipStation | None] | None = None


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
    restore_file: RestoreFile = _no_restore
    # the visitor file's passphrase typed in the window (no OS keyring); None: the
    # variable, the keyring or the terminal
    file_passphrase: Callable[[], str] | None = None

    def today(self) -> date:
        """The Madrid date (ages, validity, two-digit years)."""
        return madrid_date(self.clock.now())


@dataclass(frozen=True)
class AppContext:
    """The open visitor file and everything built over it, wired once, in one
    expression, and never changed after (``main._wire``)."""

    tools: Tools
    store: DeskFile
    desk: AdmissionDesk
    registry: RegistryPolicy  # online service and replica, fail closed (R1)
    replica: RegistryReplica  # with the snapshot signature verifier when configured
    registry_sync: ReplicaSync | None  # pulls the change feed; None = replica only
    card_printing: CardPrinting
    card_files: CardFolder  # card PDFs of the CLI and the PDF-folder printer
    documents: DeskPapers  # leaflet, regulation, voucher (art. 23.4, 25)
    retention: RetentionSweep  # six months (art. 20.4, R3)
    reprints: ReprintQueue
    vouchers: VoucherBook
    accounts: AccountService  # who works the desk: sign-in, idle lock, director (art. 20.3)
    counters: CounterReader  # the desk's counters at a time (run on the store worker)
    # the director's and the inspectors' reports and exports (arts. 14.1.b, 20.4); the
    # settings screen's changes reach it in place (``reconfigure``)
    reports: ReportService
    # where an export goes: a file written whole or not at all (FileExportTarget)
    export_target: ExportTargets
    # the reads of the reports, the search and data protection (the file itself, or the
    # server's read side)
    reads: DeskReads
    # where a file the operator names may be written (--out): never over the visitor
    # file or what belongs to it, a file already there only with --force (art. 20.4)
    outputs: OutputGuard
    # the server the desk works on; None: the desk's own SQLCipher file
    server: ServerLink | None = None
    # provisional vouchers while the server is away (art. 23.4); None on a file desk
    offline_vouchers: OfflineVouchers | None = None
    # ``db rotate-key`` on the server's keys
    key_rotation: KeyRotation = field(default_factory=_NoKeyRotation)
    closers: Closers = field(default_factory=Closers)
    # an encrypted copy of the open file, taken while the desk works (art. 20.4)
    backup_file: BackupFile = _no_backup
    # known backups past retention still present (they hold personal data too)
    stale_backups: StaleBackups = _no_backups_listed
    # the open file copied onto the casino's PostgreSQL server, verified
    server_copy: ServerCopy = field(default_factory=_NoServerCopy)
    # the settings saved on the settings screen applied to the services over the file
    # (run on the store worker: never in the middle of an evaluation)
    reconfigure: Callable[[], None] = _nothing_to_reconfigure

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
        """The HMAC code (ADM1) printed under card ``number``'s QR (art. 22.4)."""
        from admission.cards.code import encode_card_code

        return encode_card_code(self.settings["casino.id"], number, self.store.secret("card_code"))

    def signed_card_code(self, number: int) -> str:
        """The signed code (ADM2) in card ``number``'s QR (art. 22.4), for the demo and
        tests; signs with the current key (made on first use)."""
        card = self.store.card(number)
        if card is None:
            raise NotFoundError("no such card number")
        return self.store.signed_card_code(self.settings["casino.id"], card)

    def close(self) -> None:
        self.closers.close()
