"""The desk's themes: Fusion, a dark palette for a dim counter or a light high-contrast
one for a bright hall, a text size the administrator sets, large verdicts.

A casino's admission counter is usually lit low; a dark window does not dazzle the clerk
or the visitor across the desk. Where the hall is bright the light theme is black on
white. Both keep text above 12:1 against its background, draw a thick focus ring on every
widget that takes the keyboard (the clerk works with keys: Enter, Esc, F1-F8) and draw
check boxes with a bordered box and a white tick on blue, so they read on either
background. The verdict (art. 21: may enter / may not enter / the game director decides)
is shown in a large bold font; its colours are never the only sign: the widgets also show
a word and an icon for each outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

__all__ = [
    "BASE_POINT_SIZE",
    "THEMES",
    "VERDICT_COLOURS",
    "VERDICT_POINT_SIZE",
    "Theme",
    "alert_style",
    "apply_dark_theme",
    "apply_theme",
    "current_theme",
    "dark_palette",
    "light_palette",
    "verdict_font",
]

BASE_POINT_SIZE = 12  # the whole window: read at arm's length, standing (ui.font_size)
VERDICT_POINT_SIZE = 40  # the verdict banner's smallest word: read across the counter
# outcome value (admission.verdict.Outcome) -> banner background; text stays white
VERDICT_COLOURS: dict[str, str] = {
    "ADMIT": "#1B7F3B",  # green
    "DENY": "#B3261E",  # red
    "SUPERVISOR": "#9A5B00",  # amber, dark enough for white text (5.4:1)
    "ALREADY_ADMITTED": "#1F5A96",  # blue: a re-entry on the card held (art. 22), neutral
    "NOT_ADMITTED": "#4E5561",  # slate: not admitted, not refused (the RIAJ unavailable)
}
DEMO_COLOUR = "#6A1B9A"  # the DEMO banner: purple, never a verdict colour
_TICK = Path(__file__).resolve().parents[2] / "resources" / "icons" / "check-white.svg"


@dataclass(frozen=True)
class Theme:
    """One set of colours of the window."""

    name: str
    window: str
    base: str
    alt_base: str
    text: str
    disabled: str
    button: str
    highlight: str  # selection and the focus ring
    link: str
    border: str  # edges of fields, boxes and check boxes
    warning: str  # warning text in the identity panel
    error: str  # a refusal's text in a dialog, a device that cannot work


DARK = Theme(
    name="dark",
    window="#1E1F22",
    base="#141517",
    alt_base="#25272B",
    text="#E8EAED",
    disabled="#9AA0A6",
    button="#2D2F34",
    highlight="#4C8DFF",
    link="#8AB4F8",
    border="#BDC1C6",
    warning="#FFB74D",
    error="#FF8A80",
)
LIGHT = Theme(
    name="light",
    window="#FFFFFF",
    base="#FFFFFF",
    alt_base="#EEF1F5",
    text="#000000",
    disabled="#4D4D4D",
    button="#E6E9EE",
    highlight="#0041C2",
    link="#0041C2",
    border="#000000",
    warning="#8A3B00",
    error="#B00020",
)
THEMES: dict[str, Theme] = {DARK.name: DARK, LIGHT.name: LIGHT}
_current: list[Theme] = [DARK]


def current_theme() -> Theme:
    """The theme the application was last given (:func:`apply_theme`)."""
    return _current[0]


def alert_style(bold: bool = False) -> str:
    """A label's style sheet for a refusal or a device that cannot work, legible on the
    current theme's background (light red on dark, dark red on white)."""
    weight = " font-weight: bold;" if bold else ""
    return f"color: {current_theme().error};{weight}"


def _palette(theme: Theme) -> QPalette:
    palette = QPalette()
    role = QPalette.ColorRole
    group = QPalette.ColorGroup
    light = theme.name == "light"
    for r, colour in (
        (role.Window, theme.window),
        (role.WindowText, theme.text),
        (role.Base, theme.base),
        (role.AlternateBase, theme.alt_base),
        (role.ToolTipBase, theme.alt_base),
        (role.ToolTipText, theme.text),
        (role.PlaceholderText, theme.disabled),
        (role.Text, theme.text),
        (role.Button, theme.button),
        (role.ButtonText, theme.text),
        (role.BrightText, "#FFFFFF"),
        (role.Highlight, theme.highlight),
        (role.HighlightedText, "#FFFFFF"),
        (role.Link, theme.link),
        (role.LinkVisited, theme.link),
        (role.Light, "#FFFFFF" if light else "#3A3D42"),
        (role.Midlight, "#D0D4DA" if light else "#303237"),
        (role.Mid, "#8C9299" if light else "#26282C"),
        (role.Dark, "#5F6368" if light else "#101113"),
        (role.Shadow, "#000000"),
    ):
        palette.setColor(r, QColor(colour))
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, r, QColor(theme.disabled))
    return palette


def dark_palette() -> QPalette:
    """The dark desk palette; disabled text stays readable (grey on dark, 4.5:1)."""
    return _palette(DARK)


def light_palette() -> QPalette:
    """The light high-contrast palette: black on white, dark blue selection."""
    return _palette(LIGHT)


def verdict_font(point_size: int = VERDICT_POINT_SIZE) -> QFont:
    """The verdict banner's font: large and bold."""
    font = QFont()
    font.setPointSize(point_size)
    font.setBold(True)
    return font


def style_sheet(theme: Theme) -> str:
    """Focus ring, check boxes and tooltips of ``theme``. The focus ring is a border
    three pixels wide on every widget that takes the keyboard; Fusion's own thin dotted
    rectangle is not seen from the counter's other side."""
    ring = f"border: 3px solid {theme.highlight};"
    tick = _TICK.as_posix()
    icons = _TICK.parent.as_posix()
    ink = "black" if theme.name == "light" else "white"  # the arrows of spin and combo boxes
    fields = "QLineEdit, QComboBox, QSpinBox, QDoubleSpinBox, QDateEdit, QTimeEdit, QDateTimeEdit"
    focused_fields = ", ".join(f"{kind.strip()}:focus" for kind in fields.split(","))
    # the border grows on focus and the padding shrinks by as much: the text never moves
    # nor is cut (a bold or thicker frame would need a width the layout did not give)
    return f"""
QToolTip {{ color: {theme.text}; background: {theme.alt_base}; border: 1px solid {theme.border}; }}
QPushButton, QToolButton {{ padding: 6px 14px; border: 1px solid {theme.border};
    border-radius: 4px; background: {theme.button}; color: {theme.text}; }}
QPushButton:default {{ border: 2px solid {theme.border}; padding: 5px 13px; }}
QPushButton:focus, QToolButton:focus {{ {ring} padding: 4px 12px; }}
QPushButton:disabled, QToolButton:disabled {{ color: {theme.disabled};
    border-color: {theme.disabled}; }}
{fields}, QPlainTextEdit, QTextEdit {{ border: 1px solid {theme.border}; border-radius: 3px;
    padding: 3px 5px; background: {theme.base}; color: {theme.text}; }}
{focused_fields} {{ {ring} padding: 1px 3px; }}
QPlainTextEdit:focus, QTextEdit:focus, QTextBrowser:focus, QAbstractItemView:focus,
QTabWidget:focus {{ {ring} }}
QCheckBox, QRadioButton {{ padding: 3px; border: 3px solid transparent; border-radius: 4px; }}
QCheckBox:focus, QRadioButton:focus {{ {ring} }}
QCheckBox::indicator, QAbstractItemView::indicator {{ width: 20px; height: 20px;
    border: 2px solid {theme.border}; border-radius: 3px; background: {theme.base}; }}
QCheckBox::indicator:checked, QAbstractItemView::indicator:checked {{
    background: {theme.highlight}; border-color: {theme.highlight}; image: url({tick}); }}
QCheckBox::indicator:disabled {{ border-color: {theme.disabled}; }}
QRadioButton::indicator {{ width: 18px; height: 18px; border: 2px solid {theme.border};
    border-radius: 11px; background: {theme.base}; }}
QRadioButton::indicator:checked {{ background: {theme.highlight};
    border: 5px solid {theme.base}; outline: 2px solid {theme.border}; }}
QTabBar::tab:focus {{ {ring} }}
QSpinBox::up-button, QSpinBox::down-button, QDateEdit::up-button, QDateEdit::down-button,
QTimeEdit::up-button, QTimeEdit::down-button, QDoubleSpinBox::up-button,
QDoubleSpinBox::down-button {{ width: 20px; border-left: 1px solid {theme.border}; }}
QSpinBox::up-arrow, QDateEdit::up-arrow, QTimeEdit::up-arrow, QDoubleSpinBox::up-arrow {{
    image: url({icons}/arrow-up-{ink}.svg); width: 12px; height: 8px; }}
QSpinBox::down-arrow, QDateEdit::down-arrow, QTimeEdit::down-arrow, QComboBox::down-arrow,
QDoubleSpinBox::down-arrow {{ image: url({icons}/arrow-down-{ink}.svg); width: 12px;
    height: 8px; }}
QComboBox::drop-down {{ width: 22px; border-left: 1px solid {theme.border}; }}
QLabel#demoBanner {{ background: {DEMO_COLOUR}; color: #FFFFFF; font-weight: bold;
    padding: 4px; }}
"""


def apply_theme(app: QApplication, theme: str = "dark", font_size: int = BASE_POINT_SIZE) -> Theme:
    """Fusion style, the palette of ``theme`` ("dark" or "light"), the text size in
    points and the focus ring; the theme applied. Called again when the settings change."""
    chosen = THEMES.get(theme, DARK)
    size = max(8, min(int(font_size), 32))
    sheet = style_sheet(chosen)
    if (
        app.styleSheet() == sheet
        and app.font().pointSize() == size
        and app.palette().color(QPalette.ColorRole.Window) == QColor(chosen.window)
    ):
        _current[0] = chosen
        return chosen  # as it is: re-polishing every widget would change nothing
    if app.style().name().lower() != "fusion":
        style = QStyleFactory.create("Fusion")
        if style is not None:
            app.setStyle(style)
    _current[0] = chosen
    app.setPalette(_palette(chosen))
    font = app.font()
    font.setPointSize(size)
    app.setFont(font)
    app.setStyleSheet(sheet)
    return chosen


def apply_dark_theme(app: QApplication) -> None:
    """The dark theme at the default text size."""
    apply_theme(app, "dark", BASE_POINT_SIZE)
