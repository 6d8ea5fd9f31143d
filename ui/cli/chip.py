"""``chip masterlist import FILE | show``: the CSCA master list passive authentication
trusts (art. 23.1: a document that identifies; ICAO 9303-11 §5.1, 9303-12 §9).

* ``chip masterlist import FILE``: checks the list's signature, that its signer was issued
  by a CSCA inside it, and its age (refused when signed more than 90 days ago), before
  anything is written; then keeps it as ``chip/masterlist.der`` in the data folder,
  audited (``CHIP_MASTERLIST_IMPORTED``: its SHA-256, the CSCA and country counts, its
  signing time) in the same transaction.
* ``chip masterlist show``: the imported list (signing time, signer, CSCA count, the
  countries), whether it is stale, or why it cannot be used (``MASTERLIST_TAMPERED`` when
  the stored file is not the audited one).

Both are the director's or the administrator's (one row of the access matrix, as the
floor's device tokens): they keep whom the desk trusts; the clerk sees a stale or missing
list in the status bar.

Exit 0 done; 1 refused (the list's code, ``ROLE_REQUIRED``); 3 the visitor file could not
be used.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from admission.errors import AdmissionError
from hardware.chip.masterlist import (
    MAX_BYTES,
    STALE_AFTER,
    MasterList,
    MasterListCode,
    MasterListError,
    audited_digest,
    import_master_list,
    trust_state,
)
from ui.cli.access import actor_for
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

__all__ = ["ACT", "COMMAND"]

ACT = "chip masterlist"  # its row of the access matrix (ui.cli.access), as "floor token"


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="chip_command", required=True)
    masterlist = sub.add_parser(
        "masterlist", parents=[common], help="the CSCA master list of passive authentication"
    )
    acts = masterlist.add_subparsers(dest="masterlist_command", required=True)
    imported = acts.add_parser("import", parents=[common], help="check and keep a master list")
    imported.add_argument(
        "file", type=Path, help="the signed master list (DER, e.g. the BSI's .ml)"
    )
    add_user_argument(imported)
    show = acts.add_parser("show", parents=[common], help="the imported master list")
    add_user_argument(show)


def _shown(found: MasterList) -> dict[str, object]:
    return {
        "sha256": found.sha256,
        "signed_at": found.signed_at.isoformat(),
        "stale_from": (found.signed_at + STALE_AFTER).isoformat(),
        "signer": found.signer_subject,
        "cscas": len(found.cscas),
        "countries": list(found.countries),
    }


def _read(path: Path) -> bytes | None:
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except OSError:
        return None


def _import(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    actor = actor_for(args, ctx, ACT)
    der = _read(args.file)
    if der is None:
        return error(ExitCode.REFUSED, CliError.NOT_FOUND, "the master list file cannot be read")
    try:
        store = ctx.store  # both stores have read/write (the audit's transaction)
        found = import_master_list(
            store,  # type: ignore[arg-type]
            ctx.data_dir,
            der,
            actor,
            ctx.clock.now(),
        )
    except MasterListError as err:
        return error(ExitCode.REFUSED, err.code, err.detail)
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "the visitor file could not be used")
    except OSError:
        return error(ExitCode.UNAVAILABLE, CliError.OUTPUT_UNWRITABLE, "chip/masterlist.der")
    return ExitCode.OK, {"imported": True, **_shown(found)}


def _show(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    actor_for(args, ctx, ACT)
    try:
        audited = audited_digest(ctx.store)  # type: ignore[arg-type]
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "the visitor file could not be used")
    state = trust_state(ctx.data_dir, audited, ctx.clock.now())
    if state.master_list is None:
        code = state.code or MasterListCode.NOT_IMPORTED
        return error(ExitCode.REFUSED, code)
    return ExitCode.OK, {
        "imported": True,
        "stale": state.code is MasterListCode.STALE,
        **_shown(state.master_list),
    }


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    if args.masterlist_command == "import":
        return _import(args, ctx)
    return _show(args, ctx)


COMMAND = Command[AppContext](
    "chip", "the document chip's trust (CSCA master list)", _arguments, run
)
