"""The ports the desk's window and commands receive from the composition root (STYLE.md
rule 6): the visitor file as the desk uses it, its reads, and what the desk does around
the file - backups and restores, exports, the server's link, keys and copy.

The visitor file is the desk's own SQLCipher file or the casino's PostgreSQL server
(arts. 154-155: several desks and annex rooms, one file); db/ implements both, and
``main.py`` alone constructs them. Methods raise ``AdmissionError`` subclasses with
their codes, never library exceptions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

from admission.accounts import AccountService
from admission.backups import BackupInfo, KnownBackup, RestoreInfo
from admission.cards.signed import CardKeyRing
from admission.cards.verification import VerificationStore
from admission.cards.view import CardView
from admission.codes import Code
from admission.data_protection import DataProtectionStore
from admission.desk import DeskStore
from admission.devices import CardPrinter, DeviceStatus
from admission.identity import IdentityKey
from admission.inspection import InspectionAudit, InspectionReader
from admission.ports import PeopleListings
from admission.records import AuditEntry, Ban, CardRecord, IntegrityReport, Visitor
from admission.reports import ExportTarget, ReportStore
from admission.restore_loss import RestoreLoss
from admission.retention_sweep import PurgeStamps
from admission.vouchers.model import VoucherView

__all__ = [
    "BackupFile",
    "CardFolder",
    "CardPrinting",
    "DeskFile",
    "DeskPapers",
    "DeskReads",
    "ExportTargets",
    "FileInit",
    "KeyRotation",
    "PrintedCard",
    "ReprintQueue",
    "RestoreFile",
    "ServerCopy",
    "ServerLink",
    "StaleBackups",
]


class DeskFile(DeskStore, PeopleListings, VerificationStore, PurgeStamps, CardKeyRing, Protocol):
    """The visitor file as the desk uses it (art. 20.3-4): the SQLCipher file of one
    desk or the server the casino's desks share; its card-signing keys (art. 22.4)."""

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


class ReprintQueue(Protocol):
    """Cards issued and not printed (art. 22), oldest first."""

    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]: ...


class KeyRotation(Protocol):
    """``db rotate-key``: the server's data keys re-wrapped under a new installation key
    (``mode`` "rewrap") or every sealed value re-encrypted under a new data key
    ("reencrypt"), restartable; the report as JSON. Raises ``InvalidStateError`` with
    its code when refused (e.g. a desk of its own file)."""

    def rotate(
        self, *, mode: str, batch: int, progress: Callable[[str], None], actor: str
    ) -> dict[str, object]: ...


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

    def failover_at(self) -> datetime | None:
        """When the desk last moved to another primary (None: never since it started)."""
        ...

    def warning(self) -> str:
        """A code when the primary's commits do not wait for a standby (e.g.
        ``PG_NO_SYNC_STANDBY``), else ""."""
        ...


class FileInit(Protocol):
    """Creates the visitor file of the data folder - the explicit act of ``init``
    (art. 20.4) - or with ``adopt`` writes the marker of the file already there; returns
    the file id. Made by the composition root."""

    def __call__(self, *, adopt: bool = False) -> str: ...


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


class BackupFile(Protocol):
    """An encrypted copy of the open file at ``out``, taken by ``actor``; ``force``: a
    file already there is replaced (never the visitor file nor what belongs to it)."""

    def __call__(self, out: Path, actor: str, *, force: bool = False) -> BackupInfo: ...


class StaleBackups(Protocol):
    """The known backups past retention still present at ``now`` (they hold personal
    data too, art. 20.4: destroyed after six months)."""

    def __call__(self, now: datetime) -> list[KnownBackup]: ...


class ExportTargets(Protocol):
    """Makes the target of an export (FileExportTarget), its path checked at once
    (admission.atomic_file.OutputGuard); ``force``: a file already there is replaced
    (never the visitor file nor what belongs to it)."""

    def __call__(self, path: Path, *, force: bool = False) -> ExportTarget: ...


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


class PrintedCard(Protocol):
    """What one print request of a card came to (hardware/printer/service.py)."""

    @property
    def number(self) -> int: ...

    @property
    def printed(self) -> bool: ...

    @property
    def code(self) -> str:
        """ "" when printed, else the device's or the service's code."""
        ...

    @property
    def job_id(self) -> str: ...

    @property
    def warnings(self) -> tuple[Code, ...]:
        """What the card lacks (a logo, a signature...): printed anyway."""
        ...


class CardPrinting(Protocol):
    """The desk's card printing (art. 22): the card's view from the file, printed on the
    desk's printer with the card book kept in step (a reprint recorded with its reason
    before it prints). Call from a worker thread: following a job can take seconds."""

    @property
    def printer(self) -> CardPrinter: ...

    def view_for(self, number: int) -> CardView: ...

    def print_card(
        self, view: CardView, *, actor: str, reprint_reason: str = ""
    ) -> PrintedCard: ...

    def preflight_status(self) -> DeviceStatus: ...


class CardFolder(Protocol):
    """Card PDFs kept in a folder (the command line, the PDF-folder printer)."""

    @property
    def folder(self) -> Path: ...

    def write(self, number: int) -> Path:
        """Card ``number``'s PDF written whole into the folder; its path."""
        ...


class DeskPapers(Protocol):
    """The desk's own papers: the leaflet and the regulation it hands out (art. 25) and
    the provisional voucher (art. 23.4). A print answers ``(code, job id)``, code ""
    when printed."""

    def leaflet_pdf(self) -> bytes: ...

    def print_leaflet(self) -> tuple[str, str]: ...

    def voucher_pdf(self, view: VoucherView) -> bytes: ...

    def print_voucher(self, view: VoucherView) -> tuple[str, str]: ...

    def regulation_text(self) -> str: ...

    def regulation_pdf(self) -> bytes: ...

    def print_regulation(self) -> tuple[str, str]: ...
