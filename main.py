#!/usr/bin/env python3
"""Admission desk — composition root (STYLE.md rule 1).

Reads settings, opens the encrypted visitor file, builds the real or demo
adapters and hands them to the AdmissionDesk service and the command handlers.
Nothing else constructs adapters. Every command prints JSON on stdout.

Exit codes: 0 success / admitted; 1 refused or invalid input; 2 usage error;
3 the visitor file or a device could not be used (wrong key, corrupt file...).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from admission.cards.catalogue import CardCatalogue
from admission.clock import SystemClock
from admission.desk import AdmissionDesk, DeskConfig
from admission.errors import AdmissionError
from admission.hours import ALWAYS_OPEN, parse_hours
from admission.ports import Clock
from admission.registry.port import InterdictionRegistry
from admission.settings import Settings
from admission.verdict import AdmissionPolicy, Outcome

APP_NAME = "admission-desk"
DB_FILE = "visitors.db"
LAST_PURGE = "retention.last_purge"
SETTINGS_FILE = "settings.json"
# The demo file holds invented people only; its passphrase is public on purpose so
# that a newcomer reaches a working app without a keyring. Never used for real data.
DEMO_PASSPHRASE = "demo-only-not-for-real-visitors"

log = logging.getLogger("admission")


def default_data_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


@dataclass
class App:
    """Everything a command or the window needs, wired once."""

    data_dir: Path
    settings: Settings
    clock: Clock
    store: Any  # db.store.SqlCipherStore
    registry: InterdictionRegistry
    desk: AdmissionDesk
    demo: bool = False
    closers: list[Callable[[], None]] = field(default_factory=list)

    @property
    def cards_dir(self) -> Path:
        """Card PDFs of the PDF-folder printer and the CLI; swept by :meth:`purge`."""
        return self.data_dir / "cards"

    def card_code(self, number: int) -> str:
        from admission.cards.code import encode_card_code

        return encode_card_code(self.settings["casino.id"], number, self.store.secret("card_code"))

    def card_printing(self) -> Any:
        """The CardPrintService on the configured card printer (the GUI uses the same)."""
        from hardware.printer.render import style_from_settings
        from hardware.printer.service import CardPresentation, CardPrintService

        catalogue = self.desk.config.catalogue
        presentation = CardPresentation(
            casino_name=self.settings["casino.name"],
            casino_id=self.settings["casino.id"],
            code_key=self.store.secret("card_code"),
            type_labels={code: t.label_es for code, t in catalogue.types.items()},
            special_types=frozenset(c for c, t in catalogue.types.items() if t.kind.special),
        )
        return CardPrintService(
            self.store,
            build_card_printer(self.settings, self.data_dir, demo=self.demo),
            self.clock,
            style=style_from_settings(self.settings.as_dict(), demo=self.demo),
            job_timeout=self.settings["printer.job_timeout_seconds"],
            visitors=self.store,
            presentation=presentation,
        )

    def render_card(self, number: int) -> Path:
        """Render card ``number`` to ``cards/card-NNNNNNNN.pdf`` (written atomically)."""
        service = self.card_printing()
        rendered = service.render(service.view_for(number))
        self.cards_dir.mkdir(parents=True, exist_ok=True)
        path = self.cards_dir / f"card-{number:08d}.pdf"
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(rendered.pdf)
        tmp.replace(path)
        return path

    def purge(self) -> Any:
        """Retention (R3): erase the file's old rows, then the PDFs of erased cards."""
        from db.print_queue import SqlPrintQueue

        report = self.desk.purge()
        self.store.set_setting(LAST_PURGE, self.clock.now().isoformat())
        # Closed provisional vouchers carry a name and a document number (art. 23.4).
        SqlPrintQueue(self.store).purge_vouchers(report.cutoff)
        if self.cards_dir.is_dir():
            for pdf in self.cards_dir.glob("card-*.pdf"):
                match = re.match(r"card-(\d+)", pdf.name)
                if match is None or self.store.card(int(match.group(1))) is None:
                    pdf.unlink(missing_ok=True)
        return report

    def purge_if_due(self) -> None:
        """Retention at start-up and daily: any command that opens the file calls this."""
        from admission.retention import purge_due

        stamp = self.store.get_setting(LAST_PURGE)
        last = datetime.fromisoformat(stamp) if stamp else None
        if purge_due(last, self.clock.now()):
            self.purge()

    def close(self) -> None:
        for closer in reversed(self.closers):
            closer()
        self.closers.clear()


def parse_instant(text: str | None) -> datetime | None:
    if text is None:
        return None
    at = datetime.fromisoformat(text)
    if at.tzinfo is None:  # a bare local time at the desk is Madrid time
        from zoneinfo import ZoneInfo

        at = at.replace(tzinfo=ZoneInfo("Europe/Madrid"))
    return at.astimezone(UTC)


def desk_config(settings: Settings) -> DeskConfig:
    from datetime import date

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


def open_store(data_dir: Path, *, demo: bool, clock: Clock, create: bool = True) -> Any:
    from db.keys import DbKey, resolve_key
    from db.store import SqlCipherStore

    path = data_dir / DB_FILE
    if demo and not os.environ.get("ADMISSION_DB_KEY"):
        key = DbKey.from_passphrase(DEMO_PASSPHRASE, source="demo")
    else:
        key = resolve_key(
            database_exists=path.exists() and path.stat().st_size > 0,
            ask_passphrase=_ask_passphrase if sys.stdin.isatty() else None,
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    return SqlCipherStore.open(path, key, create=create, clock=clock)


def _ask_passphrase() -> str:
    import getpass

    return getpass.getpass("Clave del fichero de visitantes / visitor-file passphrase: ")


def build_card_printer(settings: Settings, data_dir: Path, *, demo: bool) -> Any:
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


def build_registry(store: Any, settings: Settings, clock: Clock) -> InterdictionRegistry:
    from datetime import timedelta

    from admission.registry.policy import RegistryPolicy, RegistryPolicySettings
    from db.registry_replica import ReplicaRegistry

    replica = ReplicaRegistry(store.connection, clock, lock=store.lock)
    online = None
    if settings["registry.online_url"]:
        from hardware.registry.soap_client import client_from_settings

        online = client_from_settings(settings)
    policy = RegistryPolicySettings(
        max_replica_age=timedelta(hours=settings["registry.max_replica_age_hours"])
    )
    return RegistryPolicy(clock, online=online, replica=replica, settings=policy)


def build_app(data_dir: Path, *, clock: Clock | None = None, demo: bool = False) -> App:
    settings = Settings.load(data_dir / SETTINGS_FILE)
    clock = clock or SystemClock()
    store = open_store(data_dir, demo=demo, clock=clock)
    try:
        registry = build_registry(store, settings, clock)
        desk = AdmissionDesk(
            store=store, registry=registry, clock=clock, config=desk_config(settings)
        )
    except BaseException:
        store.close()
        raise
    app = App(data_dir, settings, clock, store, registry, desk, demo)
    app.closers.append(store.close)
    return app


# -- argument parsing ------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
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
    parser = argparse.ArgumentParser(
        prog="main.py", parents=[common], description="Casino admission desk (Decreto 58/2006)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("parse-mrz", parents=[common], help="parse MRZ lines, print JSON")
    p.add_argument("lines", nargs="+")
    p.add_argument("--today", help="reference date for two-digit years (YYYY-MM-DD)")

    document = argparse.ArgumentParser(add_help=False)
    document.add_argument("--mrz", nargs="+", metavar="LINE")
    document.add_argument("--manual", action="store_true", help="document without MRZ (art. 23.1)")
    document.add_argument("--doc-type", default="DRIVING_LICENCE")
    document.add_argument("--issuer", default="ESP")
    document.add_argument("--number")
    document.add_argument("--surname")
    document.add_argument("--given-names", default="")
    document.add_argument("--birth-date")
    document.add_argument("--expiry-date")
    document.add_argument("--nationality", default="")
    document.add_argument("--sex", default="X")

    p = sub.add_parser("admit", parents=[common, document], help="admit a visitor")
    p.add_argument("--card-type")
    p.add_argument("--at", help="ISO-8601 instant (default: now)")
    p.add_argument("--operator", default="cli")
    p.add_argument("--authorised-by", default="", help="director taking responsibility")
    p.add_argument("--no-pdf", action="store_true", help="do not render the card PDF")

    reg = sub.add_parser("registry", parents=[common], help="RIAJ register")
    rsub = reg.add_subparsers(dest="registry_command", required=True)
    p = rsub.add_parser("import", parents=[common])
    p.add_argument("file", type=Path)
    rsub.add_parser("sync", parents=[common])
    rsub.add_parser("status", parents=[common])
    p = rsub.add_parser("check", parents=[common])
    p.add_argument("--id", required=True)
    p.add_argument("--kind", default="DNI")
    p.add_argument("--country", default="ESP")

    p = sub.add_parser("purge", parents=[common], help="erase what is past retention (R3)")
    p.add_argument("--at", help="ISO-8601 instant (default: now)")

    audit = sub.add_parser("audit", parents=[common], help="audit trail")
    asub = audit.add_subparsers(dest="audit_command", required=True)
    asub.add_parser("verify", parents=[common])

    vis = sub.add_parser("visitor", parents=[common], help="visitor file")
    vsub = vis.add_subparsers(dest="visitor_command", required=True)
    p = vsub.add_parser("show", parents=[common])
    p.add_argument("id", help="file number, identity number or KIND:COUNTRY:NUMBER")
    p.add_argument("--actor", default="cli")
    p = vsub.add_parser(
        "search",
        parents=[common],
        help="accent-insensitive name search (recorded in the audit trail)",
    )
    p.add_argument("text")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--actor", default="cli")

    p = sub.add_parser("read-document", parents=[common], help="read the MRZ of images")
    p.add_argument("--json", action="store_true", default=True)
    p.add_argument("images", nargs="+")

    p = sub.add_parser(
        "watch-document",
        parents=[common],
        help="read the MRZ from a camera, a folder of images or a video (live)",
    )
    p.add_argument("source", help="camera index (0), folder of images, video file or URL")
    p.add_argument("--max-frames", type=int, default=300)

    p = sub.add_parser("verify-card", parents=[common], help="verify an entry-card code (R8)")
    p.add_argument("code")

    p = sub.add_parser(
        "print-card",
        parents=[common],
        help="print (or reprint, with --reason) a card on the card printer",
    )
    p.add_argument("number", type=int)
    p.add_argument("--reason", default="", help="required to reprint a printed card")
    p.add_argument("--actor", default="cli")

    p = sub.add_parser("void-card", parents=[common], help="void a card (number kept)")
    p.add_argument("number", type=int)
    p.add_argument("--reason", required=True)
    p.add_argument("--actor", default="cli")

    sub.add_parser("reprint-queue", parents=[common], help="cards issued but not printed")

    p = sub.add_parser("leaflet", parents=[common], help="desk information leaflet (art. 25)")
    p.add_argument("--out", type=Path, help="write the A5 PDF here instead of printing")

    p = sub.add_parser(
        "scan", parents=[common], help="listen to a document reader; one JSON line per scan"
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--serial", metavar="PORT", help="serial / USB-CDC port (COM3...)")
    source.add_argument(
        "--replay",
        nargs="+",
        type=Path,
        metavar="RECORDING",
        help="fake reader: replay recorded bursts ([[char, t], ...] JSON)",
    )
    p.add_argument("--baud", type=int, default=9600)
    p.add_argument(
        "--admit", action="store_true", help="record admissions (default: show the verdict only)"
    )
    p.add_argument("--operator", default="cli")

    vou = sub.add_parser(
        "voucher", parents=[common], help="provisional vouchers at a crowded desk (art. 23.4)"
    )
    vsub = vou.add_subparsers(dest="voucher_command", required=True)
    p = vsub.add_parser("issue", parents=[common, document])
    p.add_argument("--card-type")
    p.add_argument("--operator", default="cli")
    p.add_argument("--out", type=Path, help="write the voucher PDF here instead of printing")
    p = vsub.add_parser("exchange", parents=[common, document])
    p.add_argument("number", type=int)
    p.add_argument("--operator", default="cli")
    p.add_argument("--no-pdf", action="store_true")
    p = vsub.add_parser("cancel", parents=[common])
    p.add_argument("number", type=int)
    p.add_argument("--reason", required=True)
    p = vsub.add_parser("open", parents=[common])
    p.add_argument(
        "--closing",
        action="store_true",
        help="only those issued before the closing of the current session",
    )

    p = sub.add_parser(
        "regulation", parents=[common], help="the text of the regulation for the desk (art. 25.1)"
    )
    p.add_argument("--out", type=Path, required=True, help="write the PDF here")

    sub.add_parser("demo", parents=[common], help="demo: invented visitors, fake devices")
    return parser


def emit(payload: object) -> None:
    print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from ui.cli import core

    try:
        code, payload = core.dispatch(args, build_app)
    except AdmissionError as exc:
        code, payload = 3, {"error": exc.code, "message": str(exc)}
    if payload is not None:
        emit(payload)
    return code


if __name__ == "__main__":
    sys.exit(run())
