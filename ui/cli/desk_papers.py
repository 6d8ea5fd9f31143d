"""``leaflet [--out FILE]`` and ``regulation --out FILE``: the desk's information for
visitors (art. 25.1): the A5 leaflet, printed or written, and the regulation's text.
Neither holds personal data, but both are acts at the desk: once the file has accounts
they sign in (``--user``, :mod:`ui.cli.access`) and are recorded under the account
(``LEAFLET_PRINTED``, ``LEAFLET_WRITTEN``, ``REGULATION_WRITTEN``)."""

from __future__ import annotations

import argparse

from admission.errors import AdmissionError
from ui.cli.access import actor_for
from ui.cli.args import add_output_arguments
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext


def write_output(args: argparse.Namespace, ctx: AppContext, pdf: bytes) -> CommandResult | None:
    """Write ``pdf`` at ``--out`` (whole, 0600; a file already there only with
    ``--force``; never the visitor file or its folder's files: OutputError); an error
    answer when the write itself fails (nothing is left then)."""
    try:
        ctx.outputs.write(args.out, pdf, force=args.force)
    except OSError:
        return error(ExitCode.REFUSED, CliError.OUTPUT_UNWRITABLE, "cannot write the PDF there")
    return None


def _leaflet_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_output_arguments(parser, required=False, what="write the A5 PDF here instead of printing")
    add_user_argument(parser)


def _record(ctx: AppContext, who: str, action: str, done: CommandResult) -> CommandResult:
    """``done``, recorded under ``who`` when it succeeded."""
    if done[0] is ExitCode.OK:
        ctx.store.append(who, action, "desk-papers", ctx.clock.now())
    return done


def leaflet(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = actor_for(args, ctx, "leaflet")
    if args.out is not None:
        written = write_output(args, ctx, ctx.documents.leaflet_pdf())
        done = written or (ExitCode.OK, {"leaflet_pdf": str(args.out)})
        return _record(ctx, who, "LEAFLET_WRITTEN", done)
    code, job = ctx.documents.print_leaflet()
    if not code:
        ctx.store.append(who, "LEAFLET_PRINTED", "desk-papers", ctx.clock.now(), {"job": str(job)})
    return (ExitCode.UNAVAILABLE if code else ExitCode.OK), {
        "printed": not code,
        "error": code or None,
        "job_id": job,
    }


def _regulation_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_output_arguments(parser, required=True, what="write the PDF here")
    add_user_argument(parser)


def regulation(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = actor_for(args, ctx, "regulation")
    try:
        pdf = ctx.documents.regulation_pdf()
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "regulation text not found")
    done = write_output(args, ctx, pdf) or (ExitCode.OK, {"regulation_pdf": str(args.out)})
    return _record(ctx, who, "REGULATION_WRITTEN", done)


LEAFLET = Command[AppContext](
    "leaflet", "desk information leaflet (art. 25)", _leaflet_arguments, leaflet
)
REGULATION = Command[AppContext](
    "regulation",
    "the text of the regulation for the desk (art. 25.1)",
    _regulation_arguments,
    regulation,
)
