"""The casino's internal bans (art. 21.2-3, R5): a person's bans, the bans in force
and the history, each reading audited (art. 20.4); the game director's decisions to
ban and to lift, dated and reasoned (the desk audits them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from admission.identity import IdentityKey
from admission.ports import Clock, PeopleListings, madrid_date
from admission.records import Ban, Visitor
from ui.context import AppContext

__all__ = ["BanDecisions", "BanFile", "BanOps", "NamedBans", "of"]

# the bans read, and the name the visitor file holds for each (ban id -> name)
NamedBans = tuple[Sequence[Ban], dict[int, str]]


class BanFile(Protocol):
    """What the ban screen reads of the visitor file, and where it records the reading."""

    def bans(self, identity: IdentityKey) -> Sequence[Ban]: ...

    def find_visitor(self, identity: IdentityKey) -> Visitor | None: ...

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int: ...


class BanDecisions(Protocol):
    """The director's decisions, through the desk (``admission.desk.AdmissionDesk``)."""

    def add_ban(
        self,
        identity: IdentityKey,
        reason: str,
        decided_by: str,
        expires_at: datetime | None = None,
    ) -> Ban: ...

    def lift_ban(self, ban_id: int, reason: str, actor: str) -> None: ...


@dataclass(frozen=True, slots=True)
class BanOps:
    file: BanFile
    decisions: BanDecisions
    clock: Clock

    def now(self) -> datetime:
        return self.clock.now()

    def today(self) -> date:
        """The Madrid date (a ban's default end)."""
        return madrid_date(self.clock.now())

    def of_person(self, identity: IdentityKey, actor: str, now: datetime) -> NamedBans:
        """Every ban of one person, lifted and expired ones included; the reading is
        recorded (BAN_QUERY: the ban list is part of the confidential file, art. 20.4)."""
        bans = self.file.bans(identity)
        self.file.append(actor, "BAN_QUERY", f"results:{len(bans)}", now)
        return bans, _names(self.file.find_visitor, bans)

    def listed(
        self,
        listings: PeopleListings,
        read: Callable[[PeopleListings, datetime], Sequence[Ban]],
        action: str,
        actor: str,
        now: datetime,
    ) -> NamedBans:
        """The casino's bans ``read`` gives, the reading recorded as ``action``."""
        bans = read(listings, now)
        self.file.append(actor, action, f"results:{len(bans)}", now)
        return bans, _names(self.file.find_visitor, bans)

    def add(
        self, identity: IdentityKey, reason: str, director: str, expires: datetime | None
    ) -> Ban:
        return self.decisions.add_ban(identity, reason, director, expires)

    def lift(self, ban_id: int, reason: str, director: str) -> None:
        self.decisions.lift_ban(ban_id, reason, director)


def of(ctx: AppContext) -> BanOps:
    return BanOps(ctx.store, ctx.desk, ctx.clock)


def _names(
    find_visitor: Callable[[IdentityKey], Visitor | None], bans: Sequence[Ban]
) -> dict[int, str]:
    """The name the visitor file holds for each banned person (a person banned before
    ever coming in has none); one look-up per identity."""
    by_identity: dict[str, str] = {}
    names: dict[int, str] = {}
    for ban in bans:
        key = ban.identity.text
        if key not in by_identity:
            visitor = find_visitor(ban.identity)
            by_identity[key] = (
                "" if visitor is None else f"{visitor.given_names} {visitor.surname}".strip()
            )
        names[ban.ban_id] = by_identity[key]
    return names
