"""Internal bans (art. 21.2-3, R5) and casino staff (art. 18, R15), written once over both
dialects (db/tx.py). Each change is an audit entry committing to the row as written
(art. 20.4). The identity, the reasons and a staff member's name are sealed to their row
on the server, found by blind index (:meth:`Tx.identity_match`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from admission.errors import InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.records import Ban, RecordErrorCode, StaffMember, StaffRole, check_new_ban
from db import codec
from db.audit_chain import ban_content, staff_content
from db.audit_rows import Content, Covered
from db.tx import Opens, Tx, insert_row, opt_when, update_row, when

BAN_COLUMNS = (
    "t.ban_id, t.identity, t.reason, t.decided_by, t.created_at, t.expires_at, "
    "t.lifted_at, t.lift_reason"
)
_BANS = f"SELECT {BAN_COLUMNS} FROM bans AS t WHERE "


def ban_from_row(opened: Opens, row: Sequence[Any]) -> Ban:
    """A ban read with :data:`BAN_COLUMNS`."""
    ban_id, identity, reason, decided_by, created, expires, lifted, lift_reason = row
    bid = int(ban_id)
    return Ban(
        bid,
        IdentityKey.parse(opened(identity, "bans", "identity", bid)),
        opened(reason, "bans", "reason", bid),
        str(decided_by),
        when(created),
        opt_when(expires),
        opt_when(lifted),
        "" if lift_reason is None else opened(lift_reason, "bans", "lift_reason", bid),
    )


def _audited_bans(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    """The chain's content of each ban, its blind index checked (the server's)."""
    found: list[Content] = []
    for row in rows:
        ban = ban_from_row(tx.open, row[:8])
        tx.check_index(f"ban:{ban.ban_id}", row[8:], identity=ban.identity.text)
        found.append((f"ban:{ban.ban_id}", ban_content(ban)))
    return found


def _audited_staff(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    """Staff rows, named by the keyed hash of the identity (never in clear)."""
    members = [staff_from_row(tx.open, row) for row in rows]
    return [("staff:" + tx.keyed_hash(m.identity.text), staff_content(m)) for m in members]


# The column naming a staff row (art. 18): the server numbers its rows (their sealed values
# are bound to the number); the SQLCipher file keys them by the identity (first column).
_STAFF_KEY = {"sqlite": "identity", "pg": "staff_id"}
_STAFF = {d: f"t.{key}, t.identity, t.name, t.role, t.active" for d, key in _STAFF_KEY.items()}
# the rows of bans and staff the chain covers (art. 20.4), in both dialects; the server's
# staff rows are numbered, their order is the sealed identity's
COVERED = Covered(
    "ban", "bans", "ban_id", BAN_COLUMNS, _audited_bans, BAN_COLUMNS + ", t.id_index, t.key_version"
)
STAFF_COVERED = Covered(
    "staff", "staff", "identity", _STAFF["sqlite"], _audited_staff, _STAFF["pg"], named=True
)


def bans_read(tx: Tx, identity: IdentityKey) -> tuple[str, list[Any]]:
    """The read of :func:`bans` (with others: Tx.fetch)."""
    match, params = tx.identity_match("t.identity", identity)
    return _BANS + match + " ORDER BY t.ban_id", params


def bans(tx: Tx, identity: IdentityKey) -> list[Ban]:
    """Every ban of this identity, lifted and expired ones included."""
    return [ban_from_row(tx.open, row) for row in tx.all(*bans_read(tx, identity))]


def active_bans(tx: Tx, identity: IdentityKey, at: datetime) -> list[Ban]:
    return [ban for ban in bans(tx, identity) if ban.active_at(at)]


_IN_FORCE = (
    "(t.lifted_at IS NULL OR t.lifted_at > ?) AND t.created_at <= ? "
    "AND (t.expires_at IS NULL OR t.expires_at > ?)"
)
_ENDED = (
    "(t.lifted_at IS NOT NULL AND t.lifted_at <= ?) "
    "OR (t.expires_at IS NOT NULL AND t.expires_at <= ?)"
)


def _listed(tx: Tx, where: str, at: datetime, limit: int, active: bool) -> list[Ban]:
    """Bans (``PeopleListings``) in force at ``at`` or ended by it, newest first. Personal
    data: the caller audits the reading (art. 20.4)."""
    moment = tx.ts(at)  # SQLite: fixed-width UTC text, compared as text
    marks = [moment] * where.count("?")
    rows = tx.all(_BANS + where + " ORDER BY t.ban_id DESC LIMIT ?", [*marks, limit])
    found = (ban_from_row(tx.open, row) for row in rows)
    return [ban for ban in found if ban.active_at(at) == active]


def bans_in_force(tx: Tx, at: datetime, limit: int = 500) -> list[Ban]:
    return _listed(tx, _IN_FORCE, at, limit, True)


def bans_ended(tx: Tx, at: datetime, limit: int = 500) -> list[Ban]:
    return _listed(tx, _ENDED, at, limit, False)


def add_ban(
    tx: Tx,
    identity: IdentityKey,
    reason: str,
    decided_by: str,
    at: datetime,
    expires_at: datetime | None = None,
) -> Ban:
    check_new_ban(reason, at, expires_at)
    ban_id = tx.new_id("bans", "ban_id")
    values = {
        "ban_id": ban_id,
        "identity": tx.seal(identity.text, "bans", "identity", ban_id),
        "reason": tx.seal(reason, "bans", "reason", ban_id),
        "decided_by": decided_by,
        "created_at": tx.ts(at),
        "expires_at": None if expires_at is None else tx.ts(expires_at),
        **tx.index_columns(identity=identity),
    }
    insert_row(tx, "bans", values)
    details = {"identity": tx.keyed_hash(identity.text)}
    tx.audit(decided_by, "BAN_ADD", f"ban:{ban_id}", at, details, [(f"ban:{ban_id}", True)])
    # the instants as stored and read back
    expires = None if expires_at is None else codec.parse_ts(codec.ts(expires_at))
    return Ban(ban_id, identity, reason, decided_by, codec.parse_ts(codec.ts(at)), expires)


def lift_ban(tx: Tx, ban_id: int, reason: str, actor: str, at: datetime) -> None:
    if not reason.strip():
        raise InvalidStateError(
            "lifting a ban needs a reason", code=RecordErrorCode.REASON_REQUIRED
        )
    row = tx.one("SELECT lifted_at FROM bans WHERE ban_id = ?", (ban_id,))
    if row is None:
        raise NotFoundError("no such ban")
    if row[0] is not None:
        raise InvalidStateError("the ban is already lifted", code=RecordErrorCode.BAN_LIFTED)
    sealed = tx.seal(reason, "bans", "lift_reason", ban_id)
    update_row(tx, "bans", {"lifted_at": tx.ts(at), "lift_reason": sealed}, "ban_id", ban_id)
    tx.audit(actor, "BAN_LIFT", f"ban:{ban_id}", at, None, [(f"ban:{ban_id}", False)])


def _staff_select(tx: Tx) -> str:
    return f"SELECT {_STAFF[tx.dialect]} FROM staff AS t"


def staff_from_row(opened: Opens, row: Sequence[Any]) -> StaffMember:
    """A staff member read by :func:`_staff_select`."""
    key, identity, name, role, active = row
    return StaffMember(
        IdentityKey.parse(opened(identity, "staff", "identity", key)),
        opened(name, "staff", "name", key),
        StaffRole(str(role)),
        bool(active),
    )


def staff_read(tx: Tx, identity: IdentityKey) -> tuple[str, list[Any]]:
    """The read of :func:`staff_member` (with others: Tx.fetch)."""
    match, params = tx.identity_match("t.identity", identity)
    return f"{_staff_select(tx)} WHERE {match}", params


def staff_member(tx: Tx, identity: IdentityKey) -> StaffMember | None:
    row = tx.one(*staff_read(tx, identity))
    return None if row is None else staff_from_row(tx.open, row)


def staff_members(tx: Tx, limit: int = 500) -> list[StaffMember]:
    """Staff members, active or not, by name (``PeopleListings``): sorted here, names
    being sealed on the server (the order of SQLite's binary collation)."""
    members = [staff_from_row(tx.open, row) for row in tx.all(_staff_select(tx))]
    members.sort(key=lambda m: (m.name, m.identity.text))
    return members[: max(0, limit)]


def add_staff(tx: Tx, member: StaffMember, actor: str, at: datetime) -> None:
    """Add or update (e.g. deactivate) a staff member."""
    key = _STAFF_KEY[tx.dialect]
    match, params = tx.identity_match("identity", member.identity)
    found = tx.one(f"SELECT {key} FROM staff WHERE {match}", params)
    row: Any = found[0] if found is not None else None
    if row is None:
        row = tx.new_id("staff", key) if key == "staff_id" else member.identity.text
    values = {
        key: row,
        "identity": tx.seal(member.identity.text, "staff", "identity", row),
        "name": tx.seal(member.name, "staff", "name", row),
        "role": member.role.value,
        "active": tx.flag(member.active),
        **tx.index_columns(identity=member.identity),
    }
    if found is None:
        insert_row(tx, "staff", values)
    else:
        update_row(tx, "staff", values, key, row)
    subject = tx.keyed_hash(member.identity.text)
    details = {"role": member.role.value, "active": str(int(member.active))}
    tx.audit(actor, "STAFF_SET", subject, at, details, [(f"staff:{subject}", found is None)])
