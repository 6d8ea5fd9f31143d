"""Who may run which command once the visitor file has accounts: the matrix of
command x role, in one place, that ``README.md`` shows and a test walks cell by cell.

The roles follow the regulation and the design's duties:

* the clerk and the game director work the desk: they admit, issue and exchange
  vouchers, print cards and check the register (art. 20.3: the director answers for
  the admission service; arts. 21-23);
* the game director alone replaces the register the desk checks (``registry import``):
  the next listed gambler is admitted or not on that file (arts. 20.2-3);
* the gaming inspector reads the file, stating what for, and never writes (art. 20.4);
* the administrator manages accounts, backups and keys, and needs no personal data.

A file without accounts yet (just made by ``init``) answers every command as before,
recorded under ``cli`` (:mod:`ui.cli.sign_in`); once the first account exists, a
command of the matrix signs in first and an account without one of its roles is
refused with the row's code, the refusal recorded in the audit trail (``ROLE_REFUSED``)
before anything is read or written.

Some rows are enforced by the services they call (the inspection, the reports, the
data-protection acts, backups, accounts): the matrix states their answer too, so the
table cannot drift from what the program does (``tests/test_cli_access.py``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from enum import StrEnum, unique

from admission.accounts import ADMIT_ROLES, AccountError, AccountErrorCode, Operator, Role
from admission.codes import Code
from admission.data_protection import DataProtectionCode
from admission.inspection import InspectionCode
from admission.observations import ObservationCode
from admission.reports import ReportCode
from ui.cli.backup import BackupCliCode
from ui.cli.sign_in import NO_ACCOUNTS_ACTOR, SignInCode, operator
from ui.context import AppContext

__all__ = [
    "ALLOWED",
    "MATRIX",
    "ROLE_REFUSED",
    "UNSIGNED_COLUMN",
    "Access",
    "AccessCode",
    "Cell",
    "actor_for",
    "cell",
    "markdown_table",
    "needs_purpose",
    "signed_for",
]

ROLE_REFUSED = "ROLE_REFUSED"  # audit action of a command refused to the account's roles
ALLOWED = "yes"
UNSIGNED_COLUMN = "no sign-in"
COLUMNS = (Role.CLERK, Role.DIRECTOR, Role.INSPECTOR, Role.ADMIN)


@unique
class AccessCode(Code):
    """Why a command is refused for what the account states, beyond its roles."""

    PURPOSE_REQUIRED = "PURPOSE_REQUIRED"  # an inspector's read states what it is for


@unique
class Cell(StrEnum):
    """How a role may run a command (what a table cell says besides a refusal code)."""

    YES = ALLOWED
    PURPOSE = "yes, --purpose"  # an inspector's read states what it is for (art. 20.4)
    OWN = "own account"  # ``account passwd`` on one's own account


EVERYONE = frozenset(Role)
DESK = ADMIT_ROLES  # who admits (arts. 20.3, 21-23)
READERS = DESK | {Role.INSPECTOR}  # who reads personal data (art. 20.4)
DIRECTOR = frozenset({Role.DIRECTOR})
KEEPERS = frozenset({Role.ADMIN, Role.DIRECTOR})  # backups and keys
ADMIN = frozenset({Role.ADMIN})
INSPECTION = frozenset({Role.INSPECTOR, Role.DIRECTOR})  # admission.inspection.ALLOWED_ROLES
REPORTERS = frozenset({Role.DIRECTOR, Role.INSPECTOR})  # admission.reports (arts. 14.1.b, 20.4)


@dataclass(frozen=True, slots=True)
class Access:
    """``roles`` may run the command; any other role is refused with ``refusal``;
    nobody signed in is answered ``unsigned`` (None: the command asks for no sign-in,
    as the file key's holder runs it). ``purpose``: roles that must state a purpose;
    ``own``: roles allowed only on their own account."""

    roles: frozenset[Role]
    refusal: Code = AccountErrorCode.ROLE_REQUIRED
    unsigned: Code | str | None = SignInCode.USER_REQUIRED
    purpose: frozenset[Role] = frozenset()
    own: frozenset[Role] = frozenset()


_USAGE = "USAGE"  # argparse: --as is required (ui.cli.result.CliError.USAGE)
_INSPECTOR_REFUSED = InspectionCode.INSPECTOR_ROLE_REQUIRED
_REPORT_REFUSED = ReportCode.REPORT_ROLE_REQUIRED
_RECTIFY_REFUSED = DataProtectionCode.RECTIFY_ROLE_REQUIRED

MATRIX: dict[str, Access] = {
    "admit": Access(DESK),
    "scan": Access(DESK),
    "voucher issue": Access(DESK),
    "voucher exchange": Access(DESK),
    "voucher cancel": Access(DESK),
    "voucher open": Access(DESK),
    "print-card": Access(DESK),
    "void-card": Access(DESK),  # and the director's own credentials (--director)
    "reprint-queue": Access(DESK),
    "verify-card": Access(READERS),  # art. 22.4: staff and inspectors check a card
    "read-chip": Access(DESK),  # art. 23.1: the document on the reader, a person's data
    "visitor show": Access(READERS, purpose=frozenset({Role.INSPECTOR})),
    "visitor search": Access(READERS, purpose=frozenset({Role.INSPECTOR})),
    "visitor note": Access(DESK, ObservationCode.OBSERVATION_ROLE_REQUIRED),
    "registry import": Access(DIRECTOR),
    "registry sync": Access(DESK),
    "registry status": Access(EVERYONE),  # versions and counts, no identity
    "registry check": Access(DESK),
    "leaflet": Access(EVERYONE),  # art. 25: no personal data, but a signed actor
    "regulation": Access(EVERYONE),
    "purge": Access(frozenset({Role.CLERK, Role.DIRECTOR, Role.ADMIN})),  # art. 20.4
    "audit verify": Access(EVERYONE, unsigned=None),  # the key's holder; no personal data
    "audit head": Access(EVERYONE, unsigned=None),
    "inspect search": Access(INSPECTION, _INSPECTOR_REFUSED, _USAGE, purpose=INSPECTION),
    "inspect timeline": Access(INSPECTION, _INSPECTOR_REFUSED, _USAGE, purpose=INSPECTION),
    "inspect export": Access(INSPECTION, _INSPECTOR_REFUSED, _USAGE, purpose=INSPECTION),
    "report day": Access(REPORTERS, _REPORT_REFUSED, _USAGE, purpose=REPORTERS),
    "report figures": Access(REPORTERS, _REPORT_REFUSED, _USAGE),
    "access-report": Access(DIRECTOR, _REPORT_REFUSED, _USAGE, purpose=DIRECTOR),
    "rectify name": Access(DIRECTOR, _RECTIFY_REFUSED, _USAGE),
    "rectify observation": Access(DIRECTOR, _RECTIFY_REFUSED, _USAGE),
    "retention": Access(
        frozenset({Role.DIRECTOR, Role.ADMIN, Role.INSPECTOR}),
        DataProtectionCode.RETENTION_ROLE_REQUIRED,
        _USAGE,
    ),
    "account add": Access(ADMIN),
    "account list": Access(ADMIN),
    "account passwd": Access(ADMIN, own=EVERYONE - ADMIN),
    "account disable": Access(ADMIN),
    "account pin": Access(frozenset(), own=EVERYONE),  # one's own quick-unlock PIN
    "user add": Access(EVERYONE, unsigned=None),  # the file key's holder (ui.cli.user)
    "backup": Access(KEEPERS, BackupCliCode.BACKUP_ROLE_REQUIRED),
    "db copy-to-server": Access(KEEPERS),
    "db rotate-key": Access(KEEPERS),
    "server confirm-restore": Access(KEEPERS),  # art. 22.1: the cards on paper
    "card-key show": Access(EVERYONE),  # art. 22.4: public keys, no personal data
    "card-key rotate": Access(KEEPERS),  # a new signing key, audited
    # art. 22.4: the floor's card checks are served by whoever keeps the desk's keys
    "floor serve": Access(KEEPERS),
    "floor token": Access(KEEPERS),  # add, list, revoke the device tokens
    # art. 23.1: whom the desk trusts to have signed a document's chip (import, show)
    "chip masterlist": Access(KEEPERS),
    # no personal data and no sign-in (ui.cli.support): a technician without an account
    # makes it, above all when the file does not open; a role asked of nobody is no rule
    "support-bundle": Access(EVERYONE, unsigned=None),
}


def cell(act: str, role: Role | None) -> str:
    """What the table says for ``role`` (None: nobody signed in) on ``act``."""
    rule = MATRIX[act]
    if role is None:
        return ALLOWED if rule.unsigned is None else str(rule.unsigned)
    if role in rule.own:
        return Cell.OWN.value
    if role not in rule.roles:
        return str(rule.refusal)
    return Cell.PURPOSE.value if role in rule.purpose else Cell.YES.value


def markdown_table() -> str:
    """The matrix as README.md shows it (one row per command)."""
    head = ["command", *(r.value for r in COLUMNS), UNSIGNED_COLUMN]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for act in MATRIX:
        cells = [f"`{act}`", *(_shown(cell(act, r)) for r in (*COLUMNS, None))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _shown(text: str) -> str:
    return text if text in {c.value for c in Cell} else f"`{text}`"


def signed_for(args: argparse.Namespace, ctx: AppContext, act: str) -> Operator | None:
    """The account signed in for ``act`` (None while the file has no account yet),
    refused - and the refusal audited - when none of its roles may run it."""
    rule = MATRIX[act]
    signed = operator(args, ctx)
    if signed is None or any(signed.has(r) for r in rule.roles):
        return signed
    ctx.store.append(
        signed.username,
        ROLE_REFUSED,
        f"command:{act}",
        ctx.clock.now(),
        {"reason": str(rule.refusal), "roles": ",".join(sorted(r.value for r in signed.roles))},
    )
    raise AccountError("the account lacks the role", code=rule.refusal)


def needs_purpose(signed: Operator, act: str) -> bool:
    """Whether ``signed`` runs ``act`` only by stating a purpose: every role that lets
    the account run it is one that states it (an inspector who is not also a clerk or
    the director, art. 20.4)."""
    rule = MATRIX[act]
    lets = [r for r in rule.roles if signed.has(r)]
    return bool(lets) and all(r in rule.purpose for r in lets)


def actor_for(args: argparse.Namespace, ctx: AppContext, act: str) -> str:
    """The user name ``act`` records: the account signed in for it, or ``cli`` while
    the file has no account yet."""
    signed = signed_for(args, ctx, act)
    return NO_ACCOUNTS_ACTOR if signed is None else signed.username
