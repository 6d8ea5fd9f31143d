"""``main.py voucher issue | exchange | cancel | open`` (art. 23.4, R11)."""

from __future__ import annotations

import argparse
from typing import Any

from admission.ports import madrid_date
from admission.vouchers.desk import exchange_voucher, issue_voucher
from admission.vouchers.model import Voucher, voucher_view

Result = tuple[int, dict[str, Any] | None]


def dispatch(args: argparse.Namespace, app: Any) -> Result:
    from db.print_queue import SqlPrintQueue

    book = SqlPrintQueue(app.store)
    command = args.voucher_command
    if command == "open":
        closing = None
        if args.closing:
            closing = app.desk.config.hours.closing_at(app.clock.now())
        vouchers = book.open_vouchers(issued_before=closing)
        return 0, {
            "closing": closing.isoformat() if closing else None,
            "vouchers": [_json(v) for v in vouchers],
        }
    if command == "cancel":
        done = book.cancel_voucher(args.number, args.reason, app.clock.now())
        return 0, _json(done)

    from ui.cli.core import document_from_args

    document, problem = document_from_args(args, madrid_date(app.clock.now()))
    if problem is not None:
        return (2 if problem.get("error") == "USAGE" else 1), problem
    if command == "issue":
        issued = issue_voucher(
            app.desk, book, app.clock, document, operator=args.operator, card_type=args.card_type
        )
        verdict = issued.evaluation.verdict
        if issued.voucher is None:
            return 1, {
                "verdict": verdict.outcome.value,
                "reasons": list(verdict.codes),
                "voucher": None,
            }
        payload = {
            "verdict": verdict.outcome.value,
            "reasons": [],
            "voucher": _json(issued.voucher),
        }
        payload.update(_print(app, issued.voucher, args.out))
        return 0, payload
    result = exchange_voucher(
        app.desk, book, app.clock, args.number, document, operator=args.operator
    )
    payload = {
        "verdict": result.verdict.outcome.value,
        "reasons": list(result.verdict.codes),
        "file_number": result.recorded.file_number,
        "card_number": result.recorded.card_number,
        "card_pdf": None,
    }
    if result.card is not None and not args.no_pdf:
        payload["card_pdf"] = str(app.render_card(result.card.number))
    return (0 if result.card is not None else 1), payload


def _print(app: Any, voucher: Voucher, out: Any) -> dict[str, Any]:
    from hardware.printer.documents import render_voucher
    from hardware.printer.service import print_voucher

    card_type = app.desk.config.catalogue.types.get(voucher.card_type)
    view = voucher_view(
        voucher,
        casino_name=app.settings["casino.name"],
        card_type_label=card_type.label_es if card_type else voucher.card_type,
    )
    if out is not None:
        out.write_bytes(render_voucher(view).pdf)
        return {"voucher_pdf": str(out)}
    from main import build_card_printer

    printer = build_card_printer(app.settings, app.data_dir, demo=app.demo)
    if not app.demo and app.settings["printer.receipt"]:
        from hardware.printer.cups import CupsPrinter

        printer = CupsPrinter(app.settings["printer.receipt"])
    code, job = print_voucher(printer, view)
    return {"printed": not code, "print_error": code or None, "job_id": job}


def _json(v: Voucher) -> dict[str, Any]:
    return {
        "number": v.number,
        "status": v.status.value,
        "issued_at": v.issued_at.isoformat(),
        "holder": v.holder_name,
        "document_type": v.document_type,
        "document_number": v.document_number,
        "card_type": v.card_type,
        "price_cents": v.price_cents,
        "card_number": v.card_number,
        "closed_at": v.closed_at.isoformat() if v.closed_at else None,
        "close_reason": v.close_reason,
    }
