"""Help at the desk: the keyboard shortcuts over the window, and the regulation's text.

The shortcuts are read from the window's own actions when the overlay opens, so the
list is never out of step with the menus (a key added to an action shows here by
itself). The regulation (Decreto 58/2006) is the text art. 25.1 requires to be at the
visitors' disposal at the desk: the clerk opens it with one key, finds a word in it and
prints it on the leaflet printer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QMouseEvent, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.desk.dialogs.common import ErrorLine, close_box

__all__ = ["RegulationDialog", "ShortcutsOverlay", "shortcut_rows"]

MAX_SEARCH = 80
COLUMNS = 3  # the keys' sheet: whole menus in three columns


def shortcut_rows(groups: Iterable[tuple[str, Iterable[QAction]]]) -> list[tuple[str, str, str]]:
    """``(group, keys, title)`` for every visible action with a shortcut, in menu order;
    keys in the platform's native form ("Ctrl+Mayús+F" in a Spanish window)."""
    rows: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for group, actions in groups:
        for action in actions:
            if not shiboken6.isValid(action):  # a wrapper Qt has already let go of
                continue
            shortcuts = [s for s in action.shortcuts() if not s.isEmpty()]
            title = action.text().replace("&", "").rstrip("…").strip()
            if not shortcuts or not title or action.isSeparator():
                continue
            keys = " / ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in shortcuts)
            if keys in seen:
                continue
            seen.add(keys)
            rows.append((group, keys, title))
    return rows


class ShortcutsOverlay(QWidget):
    """A dark sheet over the whole window listing every key (any key or click closes it)."""

    def __init__(self, parent: QWidget, rows: list[tuple[str, str, str]]) -> None:
        super().__init__(parent)
        self.setObjectName("shortcuts_overlay")
        self.setAccessibleName(self.tr("Atajos de teclado"))
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.rows = rows
        title = QLabel(self.tr("Atajos de teclado"))
        title.setObjectName("shortcuts_title")
        # whole groups in three columns, each taking groups until a third of the lines;
        # each column one rich-text table (our own action titles, escaped all the same)
        groups: list[tuple[str, list[tuple[str, str]]]] = []
        for group, keys, text in rows:
            if not groups or groups[-1][0] != group:
                groups.append((group, []))
            groups[-1][1].append((keys, text))
        share = (len(rows) + len(groups)) / COLUMNS
        tables: list[list[str]] = [[] for _ in range(COLUMNS)]
        lines = [0] * COLUMNS
        column = 0
        for group, entries in groups:
            if lines[column] >= share and column < COLUMNS - 1:
                column += 1
            cells = tables[column]
            cells.append(
                f"<tr><td colspan=2 style='color:#ffd54f; font-weight:bold;"
                f" padding-top:10px'>{escape(group)}</td></tr>"
            )
            for keys, text in entries:
                cells.append(
                    "<tr><td align=right style='font-family:monospace; font-weight:bold;"
                    f" padding-right:14px'>{escape(keys)}</td><td>{escape(text)}</td></tr>"
                )
            lines[column] += len(entries) + 1
        columns = QHBoxLayout()
        columns.setSpacing(40)
        self.columns: list[QLabel] = []
        for cells in tables:
            label = QLabel("<table cellspacing=2>" + "".join(cells) + "</table>")
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)  # a long title wraps in its cell, never cut
            label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            self.columns.append(label)
            columns.addWidget(label, 1)
        hint = QLabel(self.tr("Pulse cualquier tecla para volver"))
        hint.setObjectName("shortcuts_hint")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(48, 32, 48, 32)
        outer.addWidget(title)
        outer.addLayout(columns, 1)
        outer.addWidget(hint)
        self.setStyleSheet(
            "#shortcuts_overlay { background: rgba(10, 12, 16, 240); }"
            " QLabel { color: #f5f5f5; font-size: 13pt; }"
            " #shortcuts_title { font-size: 24pt; font-weight: bold; }"
            " #shortcuts_hint { color: #bdbdbd; padding-top: 16px; }"
        )
        parent.installEventFilter(self)
        self._fit()

    def _fit(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self._fit()
        return False

    def open(self) -> None:
        self._fit()
        self.raise_()
        self.show()
        self.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.close()
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.close()
        event.accept()

    def paintEvent(self, event: object) -> None:
        # the style sheet's background needs the styled paint of a plain QWidget
        from PySide6.QtWidgets import QStyle, QStyleOption

        option = QStyleOption()
        option.initFrom(self)
        painter = QPainter(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)


class RegulationDialog(QDialog):
    """The regulation's text, read-only, with a find field and a print button.

    ``text`` returns the text (raises to say it could not be read); ``print_it`` runs the
    print (``None``: no print button) and reports through ``show_printed``."""

    def __init__(
        self,
        text: Callable[[], str],
        print_it: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        title = self.tr("Reglamento de Casinos de Juego (Decreto 58/2006)")
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        self.errors = ErrorLine(self)
        self.search = QLineEdit()
        self.search.setMaxLength(MAX_SEARCH)
        self.search.setPlaceholderText(self.tr("Buscar en el texto (Intro: siguiente)"))
        self.search.setAccessibleName(self.tr("Buscar en el reglamento"))
        self.search.returnPressed.connect(self.find_next)
        self.body = QPlainTextEdit()
        self.body.setReadOnly(True)
        self.body.setAccessibleName(self.tr("Texto del reglamento"))
        self.body.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = self.body.font()
        font.setPointSize(max(font.pointSize(), 12))
        self.body.setFont(font)
        try:
            self.body.setPlainText(text())
        except Exception as exc:  # the catalogue's code when the file cannot be read
            self.errors.show_code(str(getattr(exc, "code", "")) or "REGULATION_UNREADABLE")
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        self.next_button = QPushButton(self.tr("Siguiente"))
        self.next_button.setAutoDefault(False)
        self.next_button.clicked.connect(self.find_next)
        top.addWidget(self.next_button)
        box: QDialogButtonBox = close_box(self, enter_closes=False)  # Enter finds
        self.print_button: QPushButton | None = None
        if print_it is not None:
            self.print_button = box.addButton(
                self.tr("&Imprimir"), QDialogButtonBox.ButtonRole.ActionRole
            )
            self.print_button.setAutoDefault(False)
            self.print_button.clicked.connect(lambda _checked=False: print_it())
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.errors)
        layout.addWidget(box)
        self.resize(900, 700)
        self.search.setFocus()

    def find_next(self) -> bool:
        """Select the next occurrence of the find field's text (wrapping to the start);
        False when the text is nowhere."""
        needle = self.search.text().strip()
        if not needle:
            return False
        flags = QTextDocument.FindFlag(0)
        if self.body.find(needle, flags):
            self.errors.clear_message()
            return True
        cursor = self.body.textCursor()
        cursor.movePosition(cursor.MoveOperation.Start)
        self.body.setTextCursor(cursor)
        if self.body.find(needle, flags):
            self.errors.clear_message()
            return True
        self.errors.show_info(self.tr("No aparece en el texto"))
        return False

    def show_printed(self, code: str) -> None:
        """The print's outcome: "" printed, otherwise the printer's code."""
        if code:
            self.errors.show_code(code)
        else:
            self.errors.show_info(self.tr("Enviado a la impresora"))
