"""Arguments several commands share: instants, identity documents, visitor ids; and
the JSON shapes of records."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from datetime import UTC, date, datetime
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
    "add_document_arguments",
    "document_from_args",
    "identity_from_text",
    "jsonable",
    "parse_instant",
    "refused",
]


def parse_instant(text: str) -> datetime:
    """An ISO-8601 instant; a bare local time at the desk is Madrid time. Raises
    ValueError for anything else."""
    at = datetime.fromisoformat(text)
    if at.tzinfo is None:
        from zoneinfo import ZoneInfo

        at = at.replace(tzinfo=ZoneInfo("Europe/Madrid"))
    return at.astimezone(UTC)


def add_document_arguments(parser: argparse.ArgumentParser) -> None:
    """The identity document of ``admit`` and ``voucher issue/exchange``."""
    parser.add_argument("--mrz", nargs="+", metavar="LINE")
    parser.add_argument("--manual", action="store_true", help="document without MRZ (art. 23.1)")
    parser.add_argument("--doc-type", default="DRIVING_LICENCE")
    parser.add_argument("--issuer", default="ESP")
    parser.add_argument("--number")
    parser.add_argument("--surname")
    parser.add_argument("--given-names", default="")
    parser.add_argument("--birth-date")
    parser.add_argument("--expiry-date")
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
        try:
            birth = date.fromisoformat(args.birth_date or "")
            expiry = date.fromisoformat(args.expiry_date) if args.expiry_date else None
        except ValueError:
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
