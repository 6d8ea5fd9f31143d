"""The people who work the desk: roles and the signed-in operator.

Art. 20.3 makes the game director answer for the admission service; art. 23.5 and
24 give the director decisions (exceptional cards, overrides) the clerk may not take.
So every admission names the operator who signed in, and a director's decision needs
the director's own credentials at that moment, never the clerk's session.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, unique

__all__ = ["Operator", "Role"]


@unique
class Role(StrEnum):
    CLERK = "CLERK"  # admits visitors, issues cards and vouchers
    DIRECTOR = "DIRECTOR"  # game director (art. 20.3): exceptions, bans, staff, voids
    INSPECTOR = "INSPECTOR"  # gaming inspector of the Comunidad: queries the file
    ADMIN = "ADMIN"  # accounts, settings, devices (no admission decision by itself)


@dataclass(frozen=True, slots=True)
class Operator:
    """A person who proved who they are (password checked just now)."""

    username: str
    display_name: str
    roles: frozenset[Role]

    def has(self, role: Role) -> bool:
        """Roles are separate duties: ADMIN does not imply DIRECTOR."""
        return role in self.roles

    def __repr__(self) -> str:  # the user name is not personal data of a visitor
        return f"Operator({self.username!r}, roles={sorted(self.roles)})"
