"""``registry import | sync | status | check``: the RIAJ replica and checks (art. 20.2, R1).

Plain functions over already-built objects, returning ``(exit_code, payload)``;
``main.py`` prints the payload as JSON. Field names are a stable contract. No identity
number is ever echoed back.

``import_command(replica: RegistryReplica, path: Path) -> (int, dict)``
    ``registry import FILE``. Validates the whole file (plain list or structured
    snapshot, checksum, signature when ``registry.public_key`` is set) and swaps it
    in atomically. 0 imported (or already active): ``{"imported": true, "version",
    "entries", "as_of", "signed", "replaced", "unchanged", "duplicates",
    "duplicate_lines"}`` - an identifier repeated on several lines is harmless: it is
    kept once, ``duplicates`` counts the repeating lines and ``duplicate_lines`` gives
    the first ten. 1 rejected, the previous snapshot stays in force: ``{"imported":
    false, "error": CODE, "message", "message_en", "detail", "line",
    "active_version"}`` (``SNAPSHOT_NOT_A_FILE`` for a folder, device or pipe,
    ``SNAPSHOT_LINE_TOO_LONG`` with its line, ``SNAPSHOT_TOO_LARGE``...).

``sync_command(sync: ReplicaSync | None)``
    ``registry sync``: one change-feed pull. 0 ok, 1 failed or not configured:
    ``{"synced", "error", "last_success", "replica_version", "replica_as_of",
    "age_seconds", "added", "removed"}``.

``status_command(replica, clock, max_age: timedelta, online_configured: bool)``
    ``registry status``: ``{"usable", "online_configured", "replica": {...} | null,
    "max_age_seconds", "events": [...]}``. 0 when checks can be answered (online
    configured, or a replica younger than ``max_age``), 1 otherwise.

``check_command(registry: InterdictionRegistry, number: str, kind="DNI", country="ESP")``
    ``registry check --id NUMBER [--kind K]`` through the same policy the desk uses.
    ``{"status", "source", "scope", "version", "as_of", "age_seconds", "error",
    "fallback_error"}``. 0 answered (LISTED or NOT_LISTED), 1 UNVERIFIABLE,
    2 bad ``--id`` / ``--kind``.

``run(args, ctx)`` dispatches ``args.registry_command`` over the context. Once the file
has accounts each subcommand signs in (``--user``) and is refused to a role that may not
run it (:mod:`ui.cli.access`): ``import`` is the game director's (art. 20.3: the
director answers for the admission service, and the register decides who is let in),
``check`` and ``sync`` a clerk's or the director's, ``status`` anybody's. Each is
recorded in the audit trail under the account (``REGISTRY_IMPORT``, refused or not,
with the version, entries and the file's SHA-256; ``REGISTRY_CHECK`` with a keyed hash
of the number, never the number; ``REGISTRY_SYNC``; ``REGISTRY_STATUS``).
"""

from __future__ import annotations

import argparse
import hashlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from admission.catalogue import text
from admission.identity import IdentityKey, IdKind
from admission.ports import Clock
from admission.registry.port import InterdictionRegistry, RegistryStatus
from admission.registry.snapshot import SnapshotError
from ui.cli.access import actor_for
from ui.cli.result import CliError, Command, CommandResult, ExitCode, described
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

if TYPE_CHECKING:
    from admission.registry.replica import RegistryReplica, ReplicaSync

Result = tuple[int, dict[str, Any]]


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def import_command(replica: RegistryReplica, path: Path) -> Result:
    try:
        result = replica.import_file(Path(path))
    except SnapshotError as exc:
        state = replica.state()
        return 1, {
            "imported": False,
            "error": exc.code,
            "message": text(exc.code, "es"),
            "message_en": text(exc.code, "en"),
            "detail": str(exc),
            "line": exc.line or None,
            "active_version": state.version if state is not None else None,
        }
    return 0, {
        "imported": True,
        "version": result.version,
        "entries": result.entries,
        "as_of": _iso(result.as_of),
        "signed": result.signed,
        "replaced": result.replaced or None,
        "unchanged": result.unchanged,
        "duplicates": result.duplicates,
        "duplicate_lines": list(result.duplicate_lines),
    }


def sync_command(sync: ReplicaSync | None) -> Result:
    if sync is None:
        return 1, {"synced": False, "error": "REGISTRY_NOT_CONFIGURED"}
    status = sync.sync_once()
    return (1 if status.last_error else 0), {
        "synced": not status.last_error,
        "error": status.last_error or None,
        "last_success": _iso(status.last_success),
        "replica_version": status.replica_version,
        "replica_as_of": _iso(status.replica_as_of),
        "age_seconds": status.age_seconds,
        "added": status.added,
        "removed": status.removed,
    }


def status_command(
    replica: RegistryReplica, clock: Clock, max_age: timedelta, online_configured: bool
) -> Result:
    state = replica.state()
    replica_json = None
    fresh = False
    if state is not None:
        age = max(0, int((clock.now() - state.as_of).total_seconds()))
        fresh = age <= max_age.total_seconds()
        replica_json = {
            "version": state.label,
            "entries": state.entries,
            "scheme": state.scheme,
            "snapshot_as_of": _iso(state.snapshot_as_of),
            "feed_as_of": _iso(state.feed_as_of),
            "feed_applied": state.feed_applied,
            "as_of": _iso(state.as_of),
            "age_seconds": age,
            "fresh": fresh,
            "signed": state.signed,
            "imported_at": _iso(state.imported_at),
        }
    events = [
        {"at": _iso(at), "kind": kind, "code": code, "version": version or None}
        for at, kind, code, version in replica.last_events(5)
    ]
    usable = online_configured or fresh
    return (0 if usable else 1), {
        "usable": usable,
        "online_configured": online_configured,
        "replica": replica_json,
        "max_age_seconds": int(max_age.total_seconds()),
        "events": events,
    }


def check_command(
    registry: InterdictionRegistry, number: str, kind: str = "DNI", country: str = "ESP"
) -> Result:
    try:
        identity = IdentityKey.of(IdKind(kind.upper()), country, number)
    except ValueError:
        return 2, described(
            CliError.BAD_IDENTITY,
            "--id must be a document number; --kind one of " + ", ".join(k.value for k in IdKind),
        )
    answer = registry.check(identity)
    return (1 if answer.status is RegistryStatus.UNVERIFIABLE else 0), {
        "status": answer.status.value,
        "source": answer.source.value,
        "scope": answer.scope,
        "version": answer.version or None,
        "as_of": _iso(answer.as_of),
        "age_seconds": answer.age_seconds,
        "error": answer.error or None,
        "fallback_error": answer.fallback_error or None,
    }


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="registry_command", required=True)
    p = sub.add_parser("import", parents=[common], help="the game director's (audited)")
    p.add_argument("file", type=Path)
    add_user_argument(p)
    add_user_argument(sub.add_parser("sync", parents=[common]))
    add_user_argument(sub.add_parser("status", parents=[common]))
    p = sub.add_parser("check", parents=[common], help="a clerk's or the director's (audited)")
    p.add_argument("--id", required=True)
    p.add_argument("--kind", default="DNI")
    p.add_argument("--country", default="ESP")
    add_user_argument(p)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    command = args.registry_command
    who = actor_for(args, ctx, f"registry {command}")  # signed in before anything is read
    if command == "check":
        code, payload = check_command(ctx.registry, args.id, args.kind, args.country)
        details = {"query": ctx.store.keyed_hash(f"{args.kind}:{args.country}:{args.id}".upper())}
        details["status"] = str(payload.get("status") or payload.get("error"))
    elif command == "import":
        code, payload = import_command(ctx.replica, args.file)
        details = _import_details(args.file, payload)
    elif command == "sync":
        code, payload = sync_command(ctx.registry_sync)
        details = {"synced": str(payload["synced"]).lower(), "error": payload["error"] or ""}
    else:
        max_age = timedelta(hours=ctx.settings["registry.max_replica_age_hours"])
        online = bool(ctx.settings["registry.online_url"])
        code, payload = status_command(ctx.replica, ctx.clock, max_age, online)
        details = {"usable": str(payload["usable"]).lower()}
    action = f"REGISTRY_{command.upper()}"
    ctx.store.append(who, action, "registry", ctx.clock.now(), details)
    return ExitCode(code), payload


def _import_details(path: Path, payload: dict[str, Any]) -> dict[str, str]:
    """What the trail keeps of an import: its outcome, the version and entries in force
    and the file's SHA-256 (which file it was, not what it lists)."""
    details = {
        "imported": str(payload["imported"]).lower(),
        "version": str(payload.get("version") or payload.get("active_version") or ""),
        "entries": str(payload.get("entries", "")),
        "sha256": _digest(path),
    }
    if not payload["imported"]:
        details["error"] = str(payload["error"])
    return details


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        if not path.is_file():
            return ""
        with path.open("rb") as source:
            for block in iter(lambda: source.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return ""
    return digest.hexdigest()


COMMAND = Command[AppContext]("registry", "RIAJ register", _arguments, run)
