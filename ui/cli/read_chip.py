"""``read-chip [--can N | --mrz LINE...]``: read the chip of the document on the reader
(ICAO 9303: DG1, DG2, EF.SOD) and say what it proves (art. 23.1).

The chip opens with the printed MRZ (``--mrz``, its lines as printed: BAC or PACE; DG1 is
then compared with it) or with the 6-digit CAN printed on the front (``--can``: PACE, as
the DNI 3.0/4.0 asks). The reader is the settings' ``chip.reader`` (``--demo``: a virtual
chip of the invented document given by ``--mrz``); the trust, the imported master list
(``chip masterlist import``).

Prints one JSON object: ``dg1`` - the chip's MRZ as ``parse-mrz`` answers it (null when
the chip was not read) - and ``chip``: ``status`` (CHIP_GENUINE, CHIP_NOT_VERIFIABLE,
CHIP_FORGED), ``code`` (why not genuine), ``access`` (PACE, BAC), ``authentication``
(the clone check) and ``issuer``; with ``apdus`` and ``ms``. Never the photo. The read
is audited (``CHIP_READ``: the chip's result only, no personal data).

Exit 0 genuine; 1 not genuine (forged, or nothing proves it: no master list, a wrong key,
the CAN needed); 2 usage; 3 the reader or the visitor file could not be used (none
configured, no card, the chip stopped answering or its secure channel broke: read again).
"""

from __future__ import annotations

import argparse
import re
import time

from admission.chip import ChipCode
from admission.desk import chip_details
from admission.errors import AdmissionError
from admission.mrz.parse import parse_mrz
from ui.cli.access import actor_for
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

__all__ = ["COMMAND", "dg1_lines"]

AUDIT_READ = "CHIP_READ"
_CAN = re.compile(r"[0-9]{6}")
# the reader, not the document: exit 3 as a device that could not be used
_DEVICE = frozenset(
    {ChipCode.READER_ERROR, ChipCode.NO_CHIP, ChipCode.CHIP_SILENT, ChipCode.SM_BROKEN}
)
_WIDTHS = {90: 30, 72: 36, 88: 44}  # TD1, TD2, TD3: one MRZ string cut into its lines


def dg1_lines(mrz: str) -> list[str]:
    """DG1's MRZ (one string, ICAO 9303-10 §4.7.1) as its printed lines; [] when its
    length is none of TD1, TD2, TD3."""
    width = _WIDTHS.get(len(mrz))
    return [] if width is None else [mrz[i : i + width] for i in range(0, len(mrz), width)]


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    key = parser.add_mutually_exclusive_group(required=True)
    key.add_argument("--can", metavar="N", help="the 6 digits printed on the card's front")
    key.add_argument("--mrz", nargs="+", metavar="LINE", help="the printed MRZ's lines")
    add_user_argument(parser)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    can = str(args.can or "")
    if args.can is not None and not _CAN.fullmatch(can):
        return error(ExitCode.USAGE, CliError.USAGE, "--can is the 6 digits on the card")
    number = birth = expiry = ""
    printed: str | None = None
    if args.mrz:
        parsed = parse_mrz(list(args.mrz), today=ctx.tools.today())
        if not parsed.valid or parsed.birth_date is None or parsed.expiry_date is None:
            first = parsed.errors[0] if parsed.errors else "MRZ_UNKNOWN_FORMAT"
            return error(ExitCode.REFUSED, str(first), "the printed MRZ does not read")
        number = parsed.document_number
        birth, expiry = parsed.birth_date.strftime("%y%m%d"), parsed.expiry_date.strftime("%y%m%d")
        printed = "".join(parsed.lines)
    who = actor_for(args, ctx, "read-chip")  # a desk's act: it reads a person's data
    factory = ctx.devices.chip_station
    station = factory(ctx) if factory is not None else None
    if station is None:
        return error(
            ExitCode.UNAVAILABLE, ChipCode.READER_ERROR, "no chip reader configured (chip.reader)"
        )
    start = time.perf_counter()
    at = ctx.clock.now()
    got = station.read(
        document_number=number, birth=birth, expiry=expiry, can=can, printed_mrz=printed, at=at
    )
    details = chip_details(got.check)
    try:
        ctx.store.append(who, AUDIT_READ, "read-chip", at, details)
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "the read could not be audited")
    lines = dg1_lines(str(getattr(got, "mrz", "")))
    out: dict[str, object] = {
        "dg1": parse_mrz(lines, today=ctx.tools.today()).to_json() if lines else None,
        "chip": details,
        "apdus": int(getattr(got, "apdus", 0)),
        "ms": round((time.perf_counter() - start) * 1000.0, 1),
    }
    if got.check.genuine:
        return ExitCode.OK, out
    if got.check.code in _DEVICE:
        return ExitCode.UNAVAILABLE, out
    return ExitCode.REFUSED, out


COMMAND = Command[AppContext](
    "read-chip",
    "read the chip of the document on the reader: DG1 and what it proves (no photo)",
    _arguments,
    run,
)
