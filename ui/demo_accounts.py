"""The demo's accounts: invented people, passwords and PIN public on purpose (shown on
the DEMO banner and in the README), on the demo file only - whose key is public too.
Qt-free: the window's demo and the command line's (``--demo floor serve``) both make
them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from admission.accounts import Role
from admission.errors import AdmissionError

if TYPE_CHECKING:
    from admission.accounts import AccountService

__all__ = ["DEMO_ACCOUNTS", "DEMO_FLOOR", "ensure_demo_accounts"]

DEMO_ACCOUNTS: tuple[tuple[str, str, str, frozenset[Role]], ...] = (
    (
        "director",
        "Directora de juegos (demo)",
        "director-demo",
        frozenset({Role.DIRECTOR, Role.ADMIN}),
    ),
    ("clerk", "Recepción (demo)", "clerk-demo", frozenset({Role.CLERK})),
)
# the floor's staff member, to try the phone page on the demo's cards (art. 22.4): user,
# shown name, password (signs in at a desk), PIN (signs in on the phone)
DEMO_FLOOR = ("sala", "Personal de sala (demo)", "sala-demo", "2468")


def ensure_demo_accounts(accounts: AccountService) -> tuple[str, str]:
    """Create the demo's director, clerk and floor staff member if missing (audited);
    the clerk's user name and password, to sign in with."""
    (d_name, d_display, d_password, d_roles), (c_name, c_display, c_password, c_roles) = (
        DEMO_ACCOUNTS
    )
    director = accounts.account(d_name)
    if director is None and not accounts.has_accounts():
        director = accounts.create_account(d_name, d_display, d_password, d_roles, actor=None)
    if director is None and (accounts.account(c_name) is None or accounts.account("sala") is None):
        raise AdmissionError("demo file has accounts but no demo director")
    if accounts.account(c_name) is None:
        assert director is not None
        accounts.create_account(c_name, c_display, c_password, c_roles, actor=director.operator())
    f_name, f_display, f_password, f_pin = DEMO_FLOOR
    if accounts.account(f_name) is None:
        assert director is not None
        made = accounts.create_account(
            f_name, f_display, f_password, {Role.FLOOR}, actor=director.operator()
        )
        accounts.set_pin(made.operator(), f_password, f_pin)
    return c_name, c_password
