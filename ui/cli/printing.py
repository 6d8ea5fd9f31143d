"""Printing and desk-information commands: print-card, void-card, reprint-queue,
leaflet, regulation (art. 22, 25; R7, R14)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

Result = tuple[int, dict[str, Any] | None]


def print_card_command(args: argparse.Namespace, app: Any) -> Result:
    service = app.card_printing()
    outcome = service.print_card(
        service.view_for(args.number), actor=args.actor, reprint_reason=args.reason
    )
    return (0 if outcome.printed else 3), {
        "card_number": outcome.number,
        "printed": outcome.printed,
        "error": outcome.code or None,
        "job_id": outcome.job_id,
        "warnings": list(outcome.warnings),
        "printer": service.printer.name,
    }


def void_card_command(args: argparse.Namespace, app: Any) -> Result:
    card = app.desk.void_card(args.number, args.reason, args.actor)
    return 0, {"card_number": card.number, "status": card.status.value}


def reprint_queue_command(args: argparse.Namespace, app: Any) -> Result:
    from db.print_queue import SqlPrintQueue

    cards = SqlPrintQueue(app.store).unprinted_cards()
    return 0, {
        "cards": [
            {
                "card_number": c.number,
                "file_number": c.file_number,
                "issued_at": c.issued_at.isoformat(),
                "card_type": c.card_type,
            }
            for c in cards
        ]
    }


def leaflet_command(args: argparse.Namespace, app: Any) -> Result:
    from admission.leaflet import build_leaflet, leaflet_config_from_settings
    from hardware.printer.documents import render_leaflet
    from hardware.printer.service import print_leaflet

    leaflet = build_leaflet(leaflet_config_from_settings(app.settings.as_dict()))
    if args.out is not None:
        args.out.write_bytes(render_leaflet(leaflet).pdf)
        return 0, {"leaflet_pdf": str(args.out)}
    from main import build_card_printer

    printer = build_card_printer(app.settings, app.data_dir, demo=app.demo)
    if not app.demo and app.settings["printer.leaflet"]:
        from hardware.printer.cups import CupsPrinter

        printer = CupsPrinter(app.settings["printer.leaflet"])
    code, job = print_leaflet(printer, leaflet)
    return (0 if not code else 3), {"printed": not code, "error": code or None, "job_id": job}


REGULATION = (
    Path(__file__).resolve().parents[2]
    / "resources"
    / "regulation"
    / ("decreto-58-2006-madrid.txt")
)


def regulation_command(args: argparse.Namespace, app: Any) -> Result:
    from hardware.printer.documents import render_text_document

    source = Path(app.settings["leaflet.regulation_path"] or REGULATION)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 3, {"error": "REGULATION_UNREADABLE", "message": "regulation text not found"}
    title = "Reglamento de Casinos de Juego de la Comunidad de Madrid (Decreto 58/2006)"
    args.out.write_bytes(render_text_document(title, text).pdf)
    return 0, {"regulation_pdf": str(args.out)}
