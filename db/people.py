"""Internal bans (art. 21.2-3, R5) and casino staff (art. 18, R15); each change is an
audit entry committing to the row as written (art. 20.4)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from admission.errors import InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.records import Ban, RecordErrorCode, StaffMember, StaffRole, check_new_ban
from db import codec
from db.audit_chain import ban_content, staff_content
from db.audit_rows import CoveredTable
from db.visitors import VisitorsMixin

BAN_COLUMNS = "ban_id, identity, reason, decided_by, created_at, expires_at, lifted_at, lift_reason"


def ban_from_row(row: Any) -> Ban:
    ban_id, identity, reason, decided_by, created, expires, lifted, lift_reason = row
    return Ban(
        int(str(ban_id)),
        IdentityKey.parse(str(identity)),
        str(reason),
        str(decided_by),
        codec.parse_ts(str(created)),
        None if expires is None else codec.parse_ts(str(expires)),
        None if lifted is None else codec.parse_ts(str(lifted)),
        str(lift_reason),
    )


def _ban_content(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    return ban_content(ban_from_row(row))


class PeopleMixin(VisitorsMixin):
    def _covered(self) -> dict[str, CoveredTable]:
        columns = ", ".join(f"t.{c.strip()}" for c in BAN_COLUMNS.split(","))
        return {
            **super()._covered(),
            "ban": CoveredTable("ban", "bans", "ban_id", columns, _ban_content),
        }

    def _staff_rows(self, conn: sqlite3.Connection) -> Iterator[tuple[str, list[object]]]:
        """Staff rows named by the keyed hash of the identity (never in clear)."""
        rows = conn.execute(
            "SELECT identity, name, role, active FROM staff ORDER BY identity"
        ).fetchall()
        for identity, name, role, active in rows:
            member = StaffMember(IdentityKey.parse(identity), name, StaffRole(role), bool(active))
            yield "staff:" + self._keyed_hash_in(conn, identity), staff_content(member)

    def active_bans(self, identity: IdentityKey, at: datetime) -> Sequence[Ban]:
        return [ban for ban in self.bans(identity) if ban.active_at(at)]

    def bans(self, identity: IdentityKey) -> Sequence[Ban]:
        """Every ban of this identity, lifted and expired ones included."""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {BAN_COLUMNS} FROM bans WHERE identity = ? ORDER BY ban_id",
                (identity.text,),
            ).fetchall()
        return [ban_from_row(row) for row in rows]

    def bans_in_force(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        """Bans neither lifted nor expired at ``at``, newest first (``PeopleListings``).
        Personal data: the caller audits the reading (art. 20.4)."""
        moment = codec.ts(at)  # fixed-width UTC text: compared as text
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {BAN_COLUMNS} FROM bans "
                "WHERE (lifted_at IS NULL OR lifted_at > ?) AND created_at <= ? "
                "AND (expires_at IS NULL OR expires_at > ?) "
                "ORDER BY ban_id DESC LIMIT ?",
                (moment, moment, moment, limit),
            ).fetchall()
        return [ban for ban in map(ban_from_row, rows) if ban.active_at(at)]

    def bans_ended(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        """Bans lifted or expired by ``at``, newest first (``PeopleListings``)."""
        moment = codec.ts(at)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {BAN_COLUMNS} FROM bans "
                "WHERE (lifted_at IS NOT NULL AND lifted_at <= ?) "
                "OR (expires_at IS NOT NULL AND expires_at <= ?) "
                "ORDER BY ban_id DESC LIMIT ?",
                (moment, moment, limit),
            ).fetchall()
        return [ban for ban in map(ban_from_row, rows) if not ban.active_at(at)]

    def staff_members(self, limit: int = 500) -> Sequence[StaffMember]:
        """Staff members, active or not, by name (``PeopleListings``)."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT identity, name, role, active FROM staff ORDER BY name, identity LIMIT ?",
                (limit,),
            ).fetchall()
        return [
            StaffMember(IdentityKey.parse(str(i)), str(n), StaffRole(str(r)), bool(a))
            for i, n, r, a in rows
        ]

    def add_ban(
        self,
        identity: IdentityKey,
        reason: str,
        decided_by: str,
        at: datetime,
        expires_at: datetime | None = None,
    ) -> Ban:
        check_new_ban(reason, at, expires_at)
        with self._tx() as conn:
            ban_id = conn.execute(
                "INSERT INTO bans (identity, reason, decided_by, created_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    identity.text,
                    reason,
                    decided_by,
                    codec.ts(at),
                    None if expires_at is None else codec.ts(expires_at),
                ),
            ).lastrowid
            assert ban_id is not None
            self._audit(
                conn,
                decided_by,
                "BAN_ADD",
                f"ban:{ban_id}",
                at,
                {"identity": self._keyed_hash_in(conn, identity.text)},
                [(f"ban:{ban_id}", True)],
            )
        return Ban(
            ban_id,
            identity,
            reason,
            decided_by,
            codec.parse_ts(codec.ts(at)),
            None if expires_at is None else codec.parse_ts(codec.ts(expires_at)),
        )

    def lift_ban(self, ban_id: int, reason: str, actor: str, at: datetime) -> None:
        if not reason.strip():
            raise InvalidStateError(
                "lifting a ban needs a reason", code=RecordErrorCode.REASON_REQUIRED
            )
        with self._tx() as conn:
            row = conn.execute("SELECT lifted_at FROM bans WHERE ban_id = ?", (ban_id,)).fetchone()
            if row is None:
                raise NotFoundError("no such ban")
            if row[0] is not None:
                raise InvalidStateError(
                    "the ban is already lifted", code=RecordErrorCode.BAN_LIFTED
                )
            conn.execute(
                "UPDATE bans SET lifted_at = ?, lift_reason = ? WHERE ban_id = ?",
                (codec.ts(at), reason, ban_id),
            )
            self._audit(
                conn, actor, "BAN_LIFT", f"ban:{ban_id}", at, None, [(f"ban:{ban_id}", False)]
            )

    def staff_member(self, identity: IdentityKey) -> StaffMember | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT identity, name, role, active FROM staff WHERE identity = ?",
                (identity.text,),
            ).fetchone()
        if row is None:
            return None
        return StaffMember(IdentityKey.parse(row[0]), row[1], StaffRole(row[2]), bool(row[3]))

    def add_staff(self, member: StaffMember, actor: str, at: datetime) -> None:
        """Add or update (e.g. deactivate) a staff member."""
        with self._tx() as conn:
            known = conn.execute(
                "SELECT 1 FROM staff WHERE identity = ?", (member.identity.text,)
            ).fetchone()
            conn.execute(
                "INSERT INTO staff (identity, name, role, active) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (identity) DO UPDATE SET name = excluded.name, "
                "role = excluded.role, active = excluded.active",
                (member.identity.text, member.name, member.role.value, int(member.active)),
            )
            subject = self._keyed_hash_in(conn, member.identity.text)
            self._audit(
                conn,
                actor,
                "STAFF_SET",
                subject,
                at,
                {"role": member.role.value, "active": str(int(member.active))},
                [(f"staff:{subject}", known is None)],
            )
