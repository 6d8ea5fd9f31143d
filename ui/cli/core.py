"""Core command handlers: parse-mrz, admit, purge, audit verify, visitor show, demo.

Each handler returns ``(exit_code, payload)``; ``main.py`` prints the payload as JSON.
The JSON field names are a stable contract: operators script them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any

from admission.clock import FixedClock, SystemClock
from admission.errors import AdmissionError
from admission.identity import IdentityKey, IdKind, normalise_number
from admission.ports import madrid_date
from ui.cli import printing, scan

Payload = dict[str, Any] | list[Any]
Result = tuple[int, Payload | None]
AppFactory = Callable[..., Any]


def data_dir_of(args: argparse.Namespace, *, demo: bool) -> Path:
    """``--data-dir``, else the user data folder; the demo always has its own folder so
    invented visitors never share a file (or a key) with real ones."""
    explicit = getattr(args, "data_dir", None)
    if explicit is not None:
        return Path(explicit)
    from main import default_data_dir

    base = default_data_dir()
    return base / "demo" if demo else base


def dispatch(args: argparse.Namespace, build_app: AppFactory) -> Result:
    command = args.command
    if command == "parse-mrz":
        return parse_mrz_command(args)
    if command == "read-document":
        from hardware.mrz.cli import read_document_command

        today = madrid_date(SystemClock().now())
        code, text = read_document_command(list(args.images), as_json=True, today=today)
        print(text)
        return code, None
    if command == "watch-document":
        from hardware.mrz.cli import watch_document_command

        today = madrid_date(SystemClock().now())
        code, text = watch_document_command(
            args.source, max_frames=max(1, args.max_frames), today=today
        )
        print(text)
        return code, None

    clock = None
    at = getattr(args, "at", None)
    if at is not None:
        from main import parse_instant

        try:
            clock = FixedClock(parse_instant(at))  # type: ignore[arg-type]
        except ValueError:
            return 2, {"error": "BAD_INSTANT", "message": "--at must be ISO-8601"}
    demo = command == "demo" or bool(getattr(args, "demo", False))
    app = build_app(data_dir_of(args, demo=demo), clock=clock, demo=demo)
    try:
        if command != "purge":
            app.purge_if_due()
        handler = HANDLERS[command]
        return handler(args, app)
    finally:
        app.close()


# -- parse-mrz -------------------------------------------------------------------------
def parse_mrz_command(args: argparse.Namespace) -> Result:
    from admission.mrz.parse import parse_mrz

    try:
        today = date.fromisoformat(args.today) if args.today else madrid_date(SystemClock().now())
    except ValueError:
        return 2, {"error": "BAD_DATE", "message": "--today must be YYYY-MM-DD"}
    result = parse_mrz(list(args.lines), today=today)
    return (0 if result.valid else 1), result.to_json()


# -- admit -----------------------------------------------------------------------------
def document_from_args(args: argparse.Namespace, today: date) -> tuple[Any, Payload | None]:
    """The identity document of an ``admit`` command, or an error payload."""
    from admission.documents import DocumentError, DocumentType, document_from_mrz, manual_document
    from admission.mrz.parse import parse_mrz

    if args.mrz and args.manual:
        return None, {"error": "USAGE", "message": "give --mrz or --manual, not both"}
    if args.mrz:
        result = parse_mrz(list(args.mrz), today=today)
        if not result.valid:
            # A garbled MRZ cannot identify anybody: refuse, record nothing.
            return None, refused(["DOCUMENT_INVALID"], errors=list(result.errors))
        return document_from_mrz(result), None
    if args.manual:
        try:
            birth = date.fromisoformat(args.birth_date or "")
            expiry = date.fromisoformat(args.expiry_date) if args.expiry_date else None
        except ValueError:
            return None, refused(["DOCUMENT_INVALID"], errors=["MANUAL_BAD_DATE"])
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
            return None, refused(["DOCUMENT_INVALID"], errors=[exc.code], field=exc.field)
        except ValueError:
            return None, refused(["DOCUMENT_NOT_ACCEPTED"], errors=["MANUAL_BAD_DOC_TYPE"])
        return doc, None
    return None, {"error": "USAGE", "message": "admit needs --mrz LINE... or --manual"}


def refused(reasons: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "verdict": "DENY",
        "reasons": reasons,
        "file_number": None,
        "card_number": None,
        "card_pdf": None,
        **extra,
    }


def admit_command(args: argparse.Namespace, app: Any) -> Result:
    today = madrid_date(app.clock.now())
    document, problem = document_from_args(args, today)
    if problem is not None:
        return (2 if problem.get("error") == "USAGE" else 1), problem
    result = app.desk.admit(
        document, operator=args.operator, card_type=args.card_type, authorised_by=args.authorised_by
    )
    card_pdf = None
    if result.card is not None and not args.no_pdf:
        card_pdf = str(app.render_card(result.card.number))
    payload = {
        "verdict": result.verdict.outcome.value,
        "reasons": list(result.verdict.codes),
        "file_number": result.recorded.file_number,
        "card_number": result.recorded.card_number,
        "card_pdf": card_pdf,
        "registry": {
            "status": result.evaluation.registry.status.value,
            "source": result.evaluation.registry.source.value,
            "version": result.evaluation.registry.version,
            "age_seconds": result.evaluation.registry.age_seconds,
            "error": result.evaluation.registry.error,
        },
    }
    return (0 if result.admitted else 1), payload


# -- purge, audit, visitor show --------------------------------------------------------
def purge_command(args: argparse.Namespace, app: Any) -> Result:
    report = app.purge()
    return 0, {
        "cutoff": report.cutoff.isoformat(),
        "visits": report.visits,
        "visitors": report.visitors,
        "observations": report.observations,
        "cards": report.cards,
    }


def audit_command(args: argparse.Namespace, app: Any) -> Result:
    check = app.store.verify()
    return (0 if check.ok else 1), {
        "ok": check.ok,
        "entries": check.entries,
        "first_bad_seq": check.first_bad_seq,
        "problem": check.problem,
    }


def identity_from_text(text: str) -> IdentityKey | int:
    """A file number (digits only), ``KIND:COUNTRY:NUMBER``, or a DNI/NIE number."""
    from admission.spanish_ids import is_valid_dni, is_valid_nie

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
        "give a file number, a DNI/NIE or KIND:COUNTRY:NUMBER", code="BAD_VISITOR_ID"
    )


def visitor_command(args: argparse.Namespace, app: Any) -> Result:
    if args.visitor_command == "search":
        return visitor_search(args, app)
    try:
        target = identity_from_text(args.id)
    except ValueError:
        return 1, {"error": "BAD_VISITOR_ID", "message": "malformed identity"}
    store = app.store
    visitor = store.visitor(target) if isinstance(target, int) else store.find_visitor(target)
    now = app.clock.now()
    subject = f"file:{visitor.file_number}" if visitor else "file:none"
    store.append(args.actor, "VISITOR_QUERY", subject, now)  # every read is recorded
    if visitor is None:
        return 1, {"error": "NOT_FOUND", "message": "no such visitor"}
    visits = store.visits(visitor.file_number)
    cards = [store.card(v.card_number) for v in visits if v.card_number is not None]
    return 0, {
        "file_number": visitor.file_number,
        "identity": visitor.identity.text,
        "surname": visitor.surname,
        "given_names": visitor.given_names,
        "birth_date": visitor.birth_date.isoformat() if visitor.birth_date else None,
        "nationality": visitor.nationality,
        "first_seen": visitor.first_seen.isoformat(),
        "last_seen": visitor.last_seen.isoformat(),
        "visits": [_visit_json(v) for v in visits],
        "cards": [_jsonable(asdict(c)) for c in cards if c is not None],
        "observations": [_jsonable(asdict(o)) for o in store.observations(visitor.file_number)],
        "bans": [_jsonable(asdict(b)) for b in store.active_bans(visitor.identity, now)],
    }


def visitor_search(args: argparse.Namespace, app: Any) -> Result:
    text = " ".join(args.text.split())
    if not 2 <= len(text) <= 100 or not 1 <= args.limit <= 500:
        return 2, {"error": "BAD_QUERY", "message": "2-100 characters, limit 1-500"}
    found = app.store.search_visitors(text, args.limit)
    # The query itself may be a name: the trail keeps a keyed hash of it, not the text.
    app.store.append(
        args.actor,
        "VISITOR_SEARCH",
        f"results:{len(found)}",
        app.clock.now(),
        {"query": app.store.keyed_hash(text.lower())},
    )
    return 0, {
        "visitors": [
            {
                "file_number": v.file_number,
                "identity": v.identity.text,
                "surname": v.surname,
                "given_names": v.given_names,
                "last_seen": v.last_seen.isoformat(),
            }
            for v in found
        ]
    }


def _visit_json(v: Any) -> dict[str, Any]:
    data = _jsonable(asdict(v))
    data["reasons"] = list(v.reasons)
    return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, IdentityKey):
        return value.text
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def registry_command(args: argparse.Namespace, app: Any) -> Result:
    from ui.cli import registry as registry_cli

    return registry_cli.dispatch(args, app)  # type: ignore[no-any-return]


def verify_card_command(args: argparse.Namespace, app: Any) -> Result:
    from ui.cli.verify_card import verify_card

    return verify_card(app.store, app.clock, app.settings["casino.id"], args.code)  # type: ignore[no-any-return]


def voucher_command(args: argparse.Namespace, app: Any) -> Result:
    from ui.cli import vouchers

    return vouchers.dispatch(args, app)


def demo_command(args: argparse.Namespace, app: Any) -> Result:
    from ui.cli.demo import run_demo

    return run_demo(app)


HANDLERS: dict[str, Callable[[argparse.Namespace, Any], Result]] = {
    "admit": admit_command,
    "purge": purge_command,
    "audit": audit_command,
    "visitor": visitor_command,
    "registry": registry_command,
    "verify-card": verify_card_command,
    "demo": demo_command,
    "print-card": printing.print_card_command,
    "void-card": printing.void_card_command,
    "reprint-queue": printing.reprint_queue_command,
    "leaflet": printing.leaflet_command,
    "regulation": printing.regulation_command,
    "scan": scan.scan_command,
    "voucher": voucher_command,
}
