"""The demo's start: its accounts (invented people, passwords public on purpose, on
the demo file only - whose key is public too) and the DEMO banner that stays on the
window for as long as it is open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSizePolicy,
    QToolBar,
    QWidget,
)

from admission.accounts import Role
from admission.errors import AdmissionError

if TYPE_CHECKING:
    from admission.accounts import AccountService


# The demo's accounts: invented people, passwords public on purpose (shown on the DEMO
# banner), on the demo file only - whose key is public too.
DEMO_ACCOUNTS: tuple[tuple[str, str, str, frozenset[Role]], ...] = (
    (
        "director",
        "Directora de juegos (demo)",
        "director-demo",
        frozenset({Role.DIRECTOR, Role.ADMIN}),
    ),
    ("clerk", "Recepción (demo)", "clerk-demo", frozenset({Role.CLERK})),
)


def ensure_demo_accounts(accounts: AccountService) -> tuple[str, str]:
    """Create the demo's director and clerk if missing (audited); the clerk's user
    name and password, to sign in with."""
    (d_name, d_display, d_password, d_roles), (c_name, c_display, c_password, c_roles) = (
        DEMO_ACCOUNTS
    )
    director = accounts.account(d_name)
    if director is None and not accounts.has_accounts():
        director = accounts.create_account(d_name, d_display, d_password, d_roles, actor=None)
    if accounts.account(c_name) is None:
        if director is None:
            raise AdmissionError("demo file has accounts but no demo director")
        accounts.create_account(c_name, c_display, c_password, c_roles, actor=director.operator())
    return c_name, c_password


def demo_banner_text() -> str:
    director, clerk = DEMO_ACCOUNTS
    return QCoreApplication.translate(
        "DeskShell",
        "DEMO — datos inventados, no usar con visitantes reales — "
        "recepción: {clerk} / {clerk_pw} — director: {director} / {director_pw}",
    ).format(clerk=clerk[0], clerk_pw=clerk[2], director=director[0], director_pw=director[2])


def add_demo_banner(window: QWidget) -> QLabel:
    """A banner across the top of ``window`` that the clerk cannot hide or move."""
    label = QLabel(demo_banner_text())
    label.setObjectName("demoBanner")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setAccessibleName(QCoreApplication.translate("DeskShell", "Aviso de demostración"))
    if isinstance(window, QMainWindow):
        bar = QToolBar(window)
        bar.setObjectName("demoBannerBar")
        bar.setMovable(False)
        bar.setFloatable(False)
        bar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        bar.toggleViewAction().setEnabled(False)
        bar.toggleViewAction().setVisible(False)
        bar.addWidget(label)
        label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        window.insertToolBarBreak(bar)
    else:
        label.setParent(window)
        label.show()
    return label
