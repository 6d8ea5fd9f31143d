"""The desk's dark theme: Fusion, a dark palette legible on a dim counter, large verdicts.

A casino's admission counter is lit low; a dark window does not dazzle the clerk or the
visitor across the desk. Text is light grey on near-black (contrast ratio above 12:1),
the focus is a bright blue ring, and the verdict (art. 21: may enter / may not enter /
the game director decides) is shown in a large bold font. The verdict colours are never
the only sign: the widgets also show a word and an icon for each outcome.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

__all__ = [
    "BASE_POINT_SIZE",
    "VERDICT_COLOURS",
    "VERDICT_POINT_SIZE",
    "apply_dark_theme",
    "dark_palette",
    "verdict_font",
]

BASE_POINT_SIZE = 12  # the whole window: read at arm's length, standing
VERDICT_POINT_SIZE = 40  # the verdict banner: read across the counter
# outcome value (admission.verdict.Outcome) -> banner background; text stays white
VERDICT_COLOURS: dict[str, str] = {
    "ADMIT": "#1B7F3B",  # green
    "DENY": "#B3261E",  # red
    "SUPERVISOR": "#B26A00",  # amber
}
DEMO_COLOUR = "#6A1B9A"  # the DEMO banner: purple, never a verdict colour

_WINDOW = QColor("#1E1F22")
_BASE = QColor("#141517")
_ALT_BASE = QColor("#25272B")
_TEXT = QColor("#E8EAED")
_DISABLED = QColor("#80868B")
_BUTTON = QColor("#2D2F34")
_HIGHLIGHT = QColor("#3D7BFD")
_LINK = QColor("#8AB4F8")


def dark_palette() -> QPalette:
    """The desk palette; disabled text stays readable (grey on dark, 4.5:1)."""
    palette = QPalette()
    role = QPalette.ColorRole
    group = QPalette.ColorGroup
    for r, colour in (
        (role.Window, _WINDOW),
        (role.WindowText, _TEXT),
        (role.Base, _BASE),
        (role.AlternateBase, _ALT_BASE),
        (role.ToolTipBase, _ALT_BASE),
        (role.ToolTipText, _TEXT),
        (role.PlaceholderText, _DISABLED),
        (role.Text, _TEXT),
        (role.Button, _BUTTON),
        (role.ButtonText, _TEXT),
        (role.BrightText, QColor("#FFFFFF")),
        (role.Highlight, _HIGHLIGHT),
        (role.HighlightedText, QColor("#FFFFFF")),
        (role.Link, _LINK),
        (role.LinkVisited, _LINK),
        (role.Light, QColor("#3A3D42")),
        (role.Midlight, QColor("#303237")),
        (role.Mid, QColor("#26282C")),
        (role.Dark, QColor("#101113")),
        (role.Shadow, QColor("#000000")),
    ):
        palette.setColor(r, colour)
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, r, _DISABLED)
    return palette


def verdict_font(point_size: int = VERDICT_POINT_SIZE) -> QFont:
    """The verdict banner's font: large and bold."""
    font = QFont()
    font.setPointSize(point_size)
    font.setBold(True)
    return font


_STYLE_SHEET = f"""
QToolTip {{ color: {_TEXT.name()}; background: {_ALT_BASE.name()}; border: 1px solid #5F6368; }}
*:focus {{ outline: none; }}
QPushButton:focus, QLineEdit:focus, QComboBox:focus, QSpinBox:focus, QTableView:focus,
QListView:focus, QTreeView:focus {{ border: 2px solid {_HIGHLIGHT.name()}; }}
QPushButton {{ padding: 6px 14px; }}
QLabel#demoBanner {{ background: {DEMO_COLOUR}; color: #FFFFFF; font-weight: bold;
    padding: 4px; }}
"""


def apply_dark_theme(app: QApplication) -> None:
    """Fusion style, the dark palette, the base font size and the focus ring."""
    style = QStyleFactory.create("Fusion")
    if style is not None:
        app.setStyle(style)
    app.setPalette(dark_palette())
    font = app.font()
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(_STYLE_SHEET)
