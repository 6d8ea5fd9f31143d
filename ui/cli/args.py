"""Arguments several commands share: instants, dates, bounded numbers, identity
documents, visitor ids; and the JSON shapes of records.

Arguments are untrusted input (STYLE.md rule 14): a date or an instant outside the
years 1900-2100 and a number outside its range are input errors, never tracebacks.
The ``argparse`` types here refuse with a message that starts with the code
(``BAD_NUMBER: ...``, ``BAD_DATE: ...``): argparse exits 2 with it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from admission.documents import (
    DocumentError,
    DocumentType,
    IdentityDocument,
    document_from_mrz,
    manual_document,
)
from admission.errors import AdmissionError
from admission.identity import IdentityKey, IdKind, normalise_number
from admission.mrz.parse import parse_mrz
from admission.spanish_ids import is_valid_dni, is_valid_nie
from admission.verdict import Reason
from ui.cli.result import CliError, Payload, described

__all__ = [
    "BAUD_RATE",
    "CARD_NUMBER",
    "FRAME_COUNT",
    "VOUCHER_NUMBER",
    "YEARS",
    "add_document_arguments",
    "add_output_arguments",
    "bounded_int",
    "date_argument",
    "document_from_args",
    "identity_from_text",
    "jsonable",
    "parse_date",
    "parse_instant",
    "refused",
]

YEARS = range(1900, 2101)  # dates and instants of the desk: births, expiries, visits


def parse_instant(text: str) -> datetime:
    """An ISO-8601 instant; a bare local time at the desk is Madrid time. Raises
    ValueError for anything else, a year outside 1900-2100 included."""
    at = datetime.fromisoformat(text)
    if at.year not in YEARS:  # year 1 or 9999 overflow once moved to UTC
        raise ValueError(f"year outside {YEARS.start}-{YEARS.stop - 1}")
    if at.tzinfo is None:
        from zoneinfo import ZoneInfo

        at = at.replace(tzinfo=ZoneInfo("Europe/Madrid"))
    try:
        at = at.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("instant out of range") from exc
    if at.year not in YEARS:
        raise ValueError(f"year outside {YEARS.start}-{YEARS.stop - 1}")
    return at


def parse_date(text: str) -> date:
    """A ``YYYY-MM-DD`` date of the years 1900-2100; ValueError for anything else."""
    day = date.fromisoformat(text)
    if day.year not in YEARS:
        raise ValueError(f"year outside {YEARS.start}-{YEARS.stop - 1}")
    return day


def date_argument(text: str) -> date:
    """``type=`` of a date argument: exit 2 with ``BAD_DATE`` for anything else."""
    try:
        return parse_date(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{CliError.BAD_DATE}: a date YYYY-MM-DD from {YEARS.start} to {YEARS.stop - 1}"
        ) from None


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """``type=`` of a whole-number argument from ``low`` to ``high``: exit 2 with
    ``BAD_NUMBER`` for anything else (a 23-digit card number reaches no database)."""

    def parse(text: str) -> int:
        raw = text.strip()
        # at most as many digits as the bound: int() is never asked for a huge number
        if raw.isascii() and raw.isdigit() and len(raw) <= len(str(high)):
            value = int(raw)
            if low <= value <= high:
                return value
        raise argparse.ArgumentTypeError(
            f"{CliError.BAD_NUMBER}: a whole number from {low:,} to {high:,}"
        )

    return parse


CARD_NUMBER = bounded_int(1, 999_999_999)  # cards are numbered from 1 (art. 22)
VOUCHER_NUMBER = bounded_int(1, 999_999_999)  # vouchers too (art. 23.4)
FRAME_COUNT = bounded_int(1, 100_000)  # about an hour of camera at 30 frames a second
BAUD_RATE = bounded_int(300, 4_000_000)  # serial and USB-CDC readers (RS-232 to FTDI)


def add_output_arguments(parser: argparse.ArgumentParser, *, required: bool, what: str) -> None:
    """``--out FILE`` and ``--force`` of a command that writes a file: a new name in a
    folder that exists, or with ``--force`` a file already there; never the visitor
    file nor anything in its data folder (admission.atomic_file.OutputGuard)."""
    parser.add_argument("--out", type=Path, required=required, help=f"{what} (a new file)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a file already at --out (never the visitor file or its folder's files)",
    )


def add_document_arguments(parser: argparse.ArgumentParser) -> None:
    """The identity document of ``admit`` and ``voucher issue/exchange``."""
    parser.add_argument("--mrz", nargs="+", metavar="LINE")
    parser.add_argument("--manual", action="store_true", help="document without MRZ (art. 23.1)")
    parser.add_argument("--doc-type", default="DRIVING_LICENCE")
    parser.add_argument("--issuer", default="ESP")
    parser.add_argument("--number")
    parser.add_argument("--surname")
    parser.add_argument("--given-names", default="")
    parser.add_argument("--birth-date", type=date_argument, metavar="YYYY-MM-DD")
    parser.add_argument("--expiry-date", type=date_argument, metavar="YYYY-MM-DD")
    parser.add_argument("--nationality", default="")
    parser.add_argument("--sex", default="X")


def refused(reasons: list[Reason], **extra: Any) -> dict[str, Any]:
    return {
        "verdict": "DENY",
        "reasons": reasons,
        "file_number": None,
        "card_number": None,
        "card_pdf": None,
        **extra,
    }


def document_from_args(
    args: argparse.Namespace, today: date
) -> tuple[IdentityDocument | None, Payload | None]:
    """The identity document of the command, or an error payload (``"error": "USAGE"``
    for a usage error, else a refusal)."""
    if args.mrz and args.manual:
        return None, described(CliError.USAGE, "give --mrz or --manual, not both")
    if args.mrz:
        result = parse_mrz(list(args.mrz), today=today)
        if not result.valid:
            # A garbled MRZ cannot identify anybody: refuse, record nothing.
            return None, refused([Reason.DOCUMENT_INVALID], errors=list(result.errors))
        return document_from_mrz(result), None
    if args.manual:
        birth: date | None = _as_date(args.birth_date)
        expiry = _as_date(args.expiry_date)
        if birth is None or (args.expiry_date and expiry is None):
            return None, refused([Reason.DOCUMENT_INVALID], errors=[CliError.MANUAL_BAD_DATE])
        try:
            doc = manual_document(
                doc_type=DocumentType(args.doc_type),
                issuer=args.issuer,
                number=args.number or "",
                surname=args.surname or "",
                given_names=args.given_names,
                birth_date=birth,
                expiry_date=expiry,
                nationality=args.nationality,
                sex=args.sex,
                today=today,
            )
        except DocumentError as exc:
            return None, refused([Reason.DOCUMENT_INVALID], errors=[exc.code], field=exc.field)
        except ValueError:
            return None, refused(
                [Reason.DOCUMENT_NOT_ACCEPTED], errors=[CliError.MANUAL_BAD_DOC_TYPE]
            )
        return doc, None
    return None, described(CliError.USAGE, "admit needs --mrz LINE... or --manual")


def _as_date(value: object) -> date | None:
    """A date argument: a ``date`` from :func:`date_argument`, or text from a caller that
    built the namespace itself; ``None`` when missing or not a date."""
    if isinstance(value, date):
        return value
    try:
        return parse_date(value) if isinstance(value, str) and value else None
    except ValueError:
        return None


def identity_from_text(text: str) -> IdentityKey | int:
    """A file number (digits only), ``KIND:COUNTRY:NUMBER``, or a DNI/NIE number."""
    raw = text.strip()
    if raw.isdigit() and len(raw) <= 10:
        return int(raw)
    if raw.count(":") == 2:
        kind, country, number = raw.split(":")
        return IdentityKey.of(kind.upper(), country, number)
    number = normalise_number(raw)
    if is_valid_dni(number):
        return IdentityKey(IdKind.DNI, "ESP", number)
    if is_valid_nie(number):
        return IdentityKey(IdKind.NIE, "ESP", number)
    raise AdmissionError(
        "give a file number, a DNI/NIE or KIND:COUNTRY:NUMBER", code=CliError.BAD_VISITOR_ID
    )


def record_json(record: Any) -> Any:
    """A record dataclass as JSON values."""
    return jsonable(asdict(record))


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, IdentityKey):
        return value.text
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
