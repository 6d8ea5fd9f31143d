"""``audit head``: the newest entry of the keyed audit chain, ``{"seq", "digest", "at"}``,
to be kept outside the file (printed on the daily visitor book; art. 20.4, 14.1.b).

``audit verify [--anchor SEQ:DIGEST]...``: walk the chain with the audit key, check every
visit, card, ban... still in the file against it, and that each anchor (a head kept
outside) is still there unchanged; 0 intact, 1 broken (``first_bad_seq`` and ``problem``
say where and what; ``first_broken`` names that entry - seq, at, actor, action,
subject - and ``message`` says the problem in Spanish, ``message_en`` in English),
2 a malformed anchor.
"""

from __future__ import annotations

import argparse
import re
from enum import unique
from typing import Any

from admission.catalogue import text as catalogue_text
from admission.codes import Code
from admission.errors import AdmissionError, StoreError
from admission.records import AuditAnchor
from admission.settings_record import settings_digests
from ui.cli.result import Command, CommandResult, ExitCode, described, error
from ui.context import AppContext

_ANCHOR = re.compile(r"^(\d{1,18}):([0-9a-fA-F]{64})$")


@unique
class AuditCliCode(Code):
    """Errors of the ``audit`` command's arguments."""

    BAD_ANCHOR = "BAD_ANCHOR"  # --anchor is not SEQ:DIGEST (a number, 64 hex characters)


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="audit_command", required=True)
    verify = sub.add_parser("verify", parents=[common])
    verify.add_argument(
        "--anchor",
        action="append",
        default=[],
        metavar="SEQ:DIGEST",
        help="a head printed earlier by 'audit head' (repeatable)",
    )
    sub.add_parser("head", parents=[common])


def parse_anchor(text: str) -> AuditAnchor | None:
    match = _ANCHOR.match(text.strip())
    if match is None or int(match[1]) < 1:
        return None
    return AuditAnchor(int(match[1]), match[2].lower())


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    if args.audit_command == "head":
        head = ctx.store.head()
        return ExitCode.OK, {
            "seq": head.seq,
            "digest": head.digest,
            "at": None if head.at is None else head.at.isoformat(),
        }
    anchors = []
    for text in args.anchor:
        anchor = parse_anchor(text)
        if anchor is None:
            return error(ExitCode.USAGE, AuditCliCode.BAD_ANCHOR, "expected SEQ:DIGEST")
        anchors.append(anchor)
    # every page's HMAC (SQLCipher's cipher_integrity_check) and SQLite's structure
    pages = ctx.store.integrity_check(structure=True)
    integrity = {
        "ok": pages.ok,
        "pages": pages.pages,
        "bad_pages": list(pages.bad_pages),
        "structure": list(pages.structure),
    }
    # settings.json against the newest settings the chain recorded (changes made
    # outside the settings screen since then: SETTINGS_UNRECORDED)
    settings = getattr(ctx, "settings", None)
    digests = None if settings is None else settings_digests(settings)
    try:
        check = ctx.store.verify(anchors, settings=digests)
    except StoreError as err:
        if pages.ok:
            raise
        # the chain runs through a damaged page: the pages say where
        return ExitCode.REFUSED, {
            "ok": False,
            "integrity": integrity,
            **described(err.code, "the audit chain could not be read past the damage"),
        }
    ok = check.ok and pages.ok
    answer = {
        "ok": ok,
        "integrity": integrity,
        "entries": check.entries,
        "first_bad_seq": check.first_bad_seq,
        "problem": check.problem,
        "rows": check.rows,
        "row": check.row or None,
        "anchors": check.anchors,
        "key_source": ctx.store.audit_key_source,
    }
    if not check.ok:
        answer["first_broken"] = first_broken(ctx, check.first_bad_seq)
        answer["message"] = catalogue_text(check.problem, "es")
        answer["message_en"] = catalogue_text(check.problem, "en")
    return (ExitCode.OK if ok else ExitCode.REFUSED), answer


def first_broken(ctx: AppContext, seq: int | None) -> dict[str, Any] | None:
    """The entry where the chain first fails (or the one committing to the changed
    row): who wrote it, when, what and about which subject - a file number or a keyed
    hash, never a name. None when there is no such entry (a missing tail, a row the
    chain never recorded) or it cannot be read."""
    if seq is None or seq < 1:
        return None
    try:
        found = ctx.store.audit_entries(seq - 1, 1)
    except AdmissionError:
        return None
    if not found or found[0].seq != seq:
        return None
    entry = found[0]
    return {
        "seq": entry.seq,
        "at": entry.at.isoformat(),
        "actor": entry.actor,
        "action": entry.action,
        "subject": entry.subject,
    }


COMMAND = Command[AppContext]("audit", "audit trail", _arguments, run)
