"""``scan --serial PORT | --replay RECORDING...``: a document reader through the scan
intake, one JSON line per scan; ``--admit`` records admissions (default: verdict only).

A recording must be a regular file of at most ``MAX_RECORDING_BYTES`` (a device or a
pipe is refused before it is read): ``BAD_RECORDING``, exit 2. ``--baud`` outside
300-4,000,000 is ``BAD_NUMBER``, exit 2. The scans and admissions record the account
signed in (``--user``, :mod:`ui.cli.sign_in`), signed in once before listening."""

from __future__ import annotations

import argparse
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

from admission.devices import ReaderStatusChanged
from admission.intake import IntakeResult, ScanIntake
from admission.mrz.burst import Passthrough
from ui.cli.access import actor_for
from ui.cli.args import BAUD_RATE
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

# 100,000 [char, t] pairs (the fake reader's limit) at about 20 bytes each, and room
MAX_RECORDING_BYTES = 4 * 1024 * 1024


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--serial", metavar="PORT", help="serial / USB-CDC port (COM3...)")
    source.add_argument(
        "--replay",
        nargs="+",
        type=Path,
        metavar="RECORDING",
        help="fake reader: replay recorded bursts ([[char, t], ...] JSON)",
    )
    parser.add_argument("--baud", type=BAUD_RATE, default=9600, help="300-4000000")
    parser.add_argument(
        "--admit", action="store_true", help="record admissions (default: show the verdict only)"
    )
    add_user_argument(parser)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    """Stream reader events through the scan intake; Ctrl+C stops listening."""
    operator = actor_for(args, ctx, "scan")  # a clerk or the director (art. 20.3)
    if args.replay:
        try:
            for path in args.replay:
                _check_recording(path)
            reader = ctx.devices.replay_reader(list(args.replay))
        except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested deep
            return error(ExitCode.USAGE, CliError.BAD_RECORDING, "not a [[char, t], ...] file")
    else:
        reader = ctx.devices.serial_reader(args.serial, args.baud)
    intake = ScanIntake(
        ctx.desk,
        store=ctx.store,
        clock=ctx.clock,
        card_key=ctx.store.secret("card_code"),
        casino_id=ctx.settings["casino.id"],
        actor=operator,
    )
    stop = threading.Event()
    try:
        for event in reader.listen(stop):
            if isinstance(event, Passthrough):
                continue
            if isinstance(event, ReaderStatusChanged):
                line: dict[str, Any] = {
                    "event": "READER",
                    "status": event.status.value,
                    "reconnected": event.reconnected,
                }
            else:
                line = _intake_json(intake.handle(event), ctx, args, operator)
            print(json.dumps(line, ensure_ascii=False), flush=True)
            ctx.retention.purge_if_due()  # a reader left listening overnight purges daily
    except KeyboardInterrupt:
        stop.set()
    return ExitCode.OK, None


def _check_recording(path: Path) -> None:
    """Raise ValueError unless ``path`` is a regular file small enough to be a recording:
    ``stat()`` never opens it, so a pipe cannot block and a device is never read."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_RECORDING_BYTES:
        raise ValueError("not a recording file")


def _intake_json(
    result: IntakeResult, ctx: AppContext, args: argparse.Namespace, operator: str
) -> dict[str, Any]:
    line: dict[str, Any] = {"event": result.kind.value, "code": result.code}
    if result.errors:
        line["errors"] = list(result.errors)
    if result.card is not None:
        line.update(result.card.to_json())
        line["code"] = result.code
    if result.evaluation is not None:
        evaluation = result.evaluation
        line["reasons"] = list(evaluation.verdict.codes)
        line["registry"] = evaluation.registry.status.value
        if args.admit:
            admitted = ctx.desk.record(evaluation, operator=operator)
            line["file_number"] = admitted.recorded.file_number
            line["card_number"] = admitted.recorded.card_number
    return line


COMMAND = Command[AppContext](
    "scan", "listen to a document reader; one JSON line per scan", _arguments, run
)
