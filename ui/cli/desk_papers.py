"""``leaflet [--out FILE]`` and ``regulation --out FILE``: the desk's information for
visitors (art. 25.1): the A5 leaflet, printed or written, and the regulation's text."""

from __future__ import annotations

import argparse
from pathlib import Path

from admission.errors import AdmissionError
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.context import AppContext


def write_output(path: Path, pdf: bytes) -> CommandResult | None:
    """Write ``pdf`` where the operator asked; an error answer when it cannot be."""
    try:
        path.write_bytes(pdf)
    except OSError:
        return error(ExitCode.REFUSED, CliError.OUTPUT_UNWRITABLE, "cannot write the PDF there")
    return None


def _leaflet_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, help="write the A5 PDF here instead of printing")


def leaflet(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    if args.out is not None:
        return write_output(args.out, ctx.documents.leaflet_pdf()) or (
            ExitCode.OK,
            {"leaflet_pdf": str(args.out)},
        )
    code, job = ctx.documents.print_leaflet()
    return (ExitCode.UNAVAILABLE if code else ExitCode.OK), {
        "printed": not code,
        "error": code or None,
        "job_id": job,
    }


def _regulation_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="write the PDF here")


def regulation(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    try:
        pdf = ctx.documents.regulation_pdf()
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "regulation text not found")
    return write_output(args.out, pdf) or (ExitCode.OK, {"regulation_pdf": str(args.out)})


LEAFLET = Command[AppContext](
    "leaflet", "desk information leaflet (art. 25)", _leaflet_arguments, leaflet
)
REGULATION = Command[AppContext](
    "regulation",
    "the text of the regulation for the desk (art. 25.1)",
    _regulation_arguments,
    regulation,
)
