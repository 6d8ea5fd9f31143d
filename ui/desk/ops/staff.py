"""The casino's staff (art. 18, R15): added to the list or taken off it by the game
director (the visitor file audits it); the list itself is ``PeopleListings``'s."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from admission.ports import Clock
from admission.records import StaffMember
from ui.context import AppContext

__all__ = ["StaffFile", "StaffOps", "of"]


class StaffFile(Protocol):
    def add_staff(self, member: StaffMember, actor: str, at: datetime) -> None: ...


@dataclass(frozen=True, slots=True)
class StaffOps:
    file: StaffFile
    clock: Clock

    def now(self) -> datetime:
        return self.clock.now()

    def save(self, member: StaffMember, director: str, at: datetime) -> None:
        """``member`` added, or changed (``active=False``: off the list), by ``director``."""
        self.file.add_staff(member, director, at)


def of(ctx: AppContext) -> StaffOps:
    return StaffOps(ctx.store, ctx.clock)
