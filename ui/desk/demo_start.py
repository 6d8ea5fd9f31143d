"""The demo's start: its accounts (invented people, passwords public on purpose, on
the demo file only - whose key is public too) and the DEMO banner that stays on the
window for as long as it is open.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSizePolicy,
    QToolBar,
    QWidget,
)

from ui.demo_accounts import DEMO_ACCOUNTS, ensure_demo_accounts

__all__ = ["DEMO_ACCOUNTS", "add_demo_banner", "demo_banner_text", "ensure_demo_accounts"]


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
