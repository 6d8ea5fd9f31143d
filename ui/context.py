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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from admission.accounts import AccountService
from admission.atomic_file import OutputGuard
from admission.cards.verification import VerificationStore
from admission.data_protection import DataProtectionStore
from admission.desk import DeskStore
from admission.errors import ConfigError
from admission.identity import IdentityKey
from admission.inspection import InspectionAudit, InspectionReader
from admission.ports import Clock, PeopleListings, madrid_date
from admission.records import AuditEntry, Ban, CardRecord, Visitor
from admission.reports import ExportTarget, ReportService, ReportStore
from admission.retention_sweep import PurgeStamps
from admission.settings import Settings
from admission.vouchers.model import NewVoucher, VoucherBook

if TYPE_CHECKING:
    from admission.backups import BackupInfo, KnownBackup, RestoreInfo
    from admission.counters import CounterReader
    from admission.desk import AdmissionDesk
    from admission.devices import Camera, CardPrinter, DeviceStatus, DocumentReader, SoundPlayer
    from admission.records import IntegrityReport
    from admission.registry.policy import RegistryPolicy
    from admission.registry.port import InterdictionRegistry
    from admission.registry.replica import RegistryReplica
    from admission.restore_loss import RestoreLoss
    from admission.retention_sweep import RetentionSweep
    from admission.vouchers.offline import FormaliseReport, QueuedVoucher
    from hardware.mrz.live import LiveMrzReader
    from hardware.mrz.portrait import PortraitCutter
    from hardware.mrz.reader import MrzReader
    from hardware.printer.card_files import CardFiles
    from hardware.printer.desk_documents import DeskDocuments
    from hardware.printer.service import CardPrintService
    from hardware.registry.sync import RegistrySync

__all__ = [
    "AppContext",
    "DeskFile",
    "DeskReads",
    "Devices",
    "FileInit",
    "KeyRotation",
    "OfflineVouchers",
    "ReprintQueue",
    "ServerCopy",
    "ServerLink",
    "Tools",
]


class DeskFile(DeskStore, PeopleListings, VerificationStore, PurgeStamps, Protocol):
    """The visitor file as the desk uses it (art. 20.3-4): the SQLCipher file of one
    desk or the server the casino's desks share."""

    def secret(self, name: str) -> bytes: ...

    def search_visitors(self, text: str, limit: int = 50) -> Sequence[Visitor]: ...

    def bans(self, identity: IdentityKey) -> Sequence[Ban]:
        """Every ban of this identity, lifted and expired ones included."""
        ...

    def ping(self) -> float:
        """The file answers a trivial read; how long it took, in seconds."""
        ...

    def keyed_hash(self, text: str) -> str: ...

    def integrity_check(self, *, structure: bool = False) -> IntegrityReport: ...

    @property
    def audit_key_source(self) -> str: ...

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]: ...


class DeskReads(ReportStore, InspectionReader, InspectionAudit, DataProtectionStore, Protocol):
    """What the director's and the inspectors' screens read (arts. 14.1.b, 20.4): the
    reports, the search, rectification and the retention view."""


class OfflineVouchers(Protocol):
    """The provisional vouchers of art. 23.4 a desk of the server gives while the server
    cannot be reached: recorded in the desk's encrypted queue with a local reference,
    formalised on the server's voucher book, in order and once, when it answers."""

    def issue(self, new: NewVoucher) -> QueuedVoucher: ...

    def pending(self) -> list[QueuedVoucher]: ...

    def formalise(self) -> FormaliseReport: ...


class KeyRotation(Protocol):
    """``db rotate-key``: the server's data keys re-wrapped under a new installation key
    (``mode`` "rewrap") or every sealed value re-encrypted under a new data key
    ("reencrypt"), restartable; the report as JSON. Raises ``InvalidStateError`` with
    its code when refused (e.g. a desk of its own file)."""

    def rotate(
        self, *, mode: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> dict[str, object]: ...


class _NoKeyRotation:
    def rotate(
        self, *, mode: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> dict[str, object]:
        raise ConfigError("no key rotation was given to this context")


class ReprintQueue(Protocol):
    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]: ...


class ServerLink(Protocol):
    """The desk's link to the casino's PostgreSQL server (arts. 154-155), for the status
    bar: where it points (log-safe) and its round trip."""

    def describe(self) -> str: ...

    def measure(self) -> float:
        """One round trip, in seconds; raises ``StoreError`` when the server does not
        answer."""
        ...

    def median_ms(self) -> float | None:
        """The median of the recent round trips, in milliseconds (None: none yet)."""
        ...


class FileInit(Protocol):
    """Creates the visitor file of the data folder - the explicit act of ``init``
    (art. 20.4) - or with ``adopt`` writes the marker of the file already there; returns
    the file id. Made by the composition root."""

    def __call__(self, *, adopt: bool = False) -> str: ...


def _no_file_init(*, adopt: bool = False) -> str:
    raise ConfigError("no visitor-file factory was given to these tools")


def _nothing_to_reconfigure() -> None:
    return None


class RestoreFile(Protocol):
    """``restore``: a backup becomes this folder's visitor file (never over one there).
    A backup older than what the folder knows is refused (RESTORE_LOSES_DATA) unless
    ``accept_loss`` signs the game director in on the backup's own accounts and
    returns the director's user name. Made by the composition root."""

    def __call__(
        self,
        source: Path,
        *,
        accept_loss: Callable[[RestoreLoss, AccountService], str] | None = None,
    ) -> RestoreInfo: ...


def _no_restore(
    source: Path, *, accept_loss: Callable[[RestoreLoss, AccountService], str] | None = None
) -> RestoreInfo:
    raise ConfigError("no restore was given to these tools")


def _no_backup(out: Path, actor: str, *, force: bool = False) -> BackupInfo:
    raise ConfigError("no backup was given to this context")


class ExportTargets(Protocol):
    """Makes the target of an export (FileExportTarget), its path checked at once
    (admission.atomic_file.OutputGuard); ``force``: a file already there is replaced
    (never the visitor file nor what belongs to it)."""

    def __call__(self, path: Path, *, force: bool = False) -> ExportTarget: ...


class BackupFile(Protocol):
    """An encrypted copy of the open file at ``out``, taken by ``actor``; ``force``: a
    file already there is replaced (never the visitor file nor what belongs to it)."""

    def __call__(self, out: Path, actor: str, *, force: bool = False) -> BackupInfo: ...


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
    # the holder's portrait beside the MRZ the camera read (memory only); None: none
    portrait: Callable[[], PortraitCutter] | None = None
    # the RIAJ's online service as these settings describe it (art. 20.2), for the
    # first-run wizard's test before the desk is built over it
    online_registry: Callable[[Settings], InterdictionRegistry] | None = None


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


@dataclass
class AppContext:
    """The open visitor file and everything built over it, wired once."""

    tools: Tools
    store: DeskFile
    desk: AdmissionDesk
    registry: RegistryPolicy  # online service and replica, fail closed (R1)
    replica: RegistryReplica  # with the snapshot signature verifier when configured
    registry_sync: RegistrySync | None  # pulls the change feed; None = replica only
    card_printing: CardPrintService
    card_files: CardFiles  # card PDFs of the CLI and the PDF-folder printer
    documents: DeskDocuments  # leaflet, regulation, voucher (art. 23.4, 25)
    retention: RetentionSweep  # six months (art. 20.4, R3)
    reprints: ReprintQueue
    vouchers: VoucherBook
    accounts: AccountService  # who works the desk: sign-in, idle lock, director (art. 20.3)
    counters: CounterReader  # the desk's counters at a time (run on the store worker)
    # the director's and the inspectors' reports and exports (arts. 14.1.b, 20.4)
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
    closers: list[Callable[[], None]] = field(default_factory=list)
    # an encrypted copy of the open file, taken while the desk works (art. 20.4)
    backup_file: BackupFile = _no_backup
    # known backups past retention still present (they hold personal data too)
    stale_backups: Callable[[datetime], list[KnownBackup]] = _no_backups_listed
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
        """The signed code printed on card ``number`` (art. 22.4)."""
        from admission.cards.code import encode_card_code

        return encode_card_code(self.settings["casino.id"], number, self.store.secret("card_code"))

    def close(self) -> None:
        for closer in reversed(self.closers):
            closer()
        self.closers.clear()
