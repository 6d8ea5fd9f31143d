"""What the desk's dialogs build alike, written once: a read-only list, a notice, a
column of parts, the dialog over the document on screen (exceptional card, official,
vouchers) and the screens that save settings (the settings, the printers). Every text
is the caller's, translated in its own class's context."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from admission.cards.catalogue import CardCatalogue
from admission.cards.view import format_euros
from admission.desk import DeskDocument
from admission.errors import AdmissionError
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
    apply_settings,
    document_summary,
    plain_label,
    show_refusal,
)
from ui.desk.jobs import JobRunner
from ui.desk.ops.settings import SettingsOps
from ui.desk.text import card_type_label

__all__ = [
    "DocumentDialog",
    "OpsDialog",
    "SettingsScreen",
    "button_row",
    "card_type_combo",
    "column",
    "fill_row",
    "identity_entry",
    "list_table",
    "notice",
    "save_cancel",
    "titled",
]

Ops = TypeVar("Ops")


def titled(dialog: QWidget, title: str) -> None:
    """The window's title, which a screen reader names it by too."""
    dialog.setWindowTitle(title)
    dialog.setAccessibleName(title)


def notice(text: str, name: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setAccessibleName(name)
    return label


def identity_entry(name: str, placeholder: str) -> QLineEdit:
    """Where a person's identity is typed: DNI/NIE or TYPE:COUNTRY:NUMBER."""
    edit = QLineEdit()
    edit.setAccessibleName(name)
    edit.setPlaceholderText(placeholder)
    edit.setMaxLength(60)
    return edit


def list_table(columns: Sequence[str], name: str) -> QTableWidget:
    """A read-only list chosen one whole row at a time, its last column stretched."""
    table = QTableWidget(0, len(columns))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(list(columns))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def fill_row(table: QTableWidget, row: int, cells: Sequence[str]) -> None:
    """Row ``row`` of ``table``: plain text cells, each read out as shown."""
    for index, value in enumerate(cells):
        item = QTableWidgetItem(value)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, value)
        table.setItem(row, index, item)


def card_type_combo(catalogue: CardCatalogue, wanted: str | None, name: str) -> QComboBox:
    """The card types in force with their prices (art. 23.2-3); ``wanted`` chosen, else
    the default."""
    combo = QComboBox()
    combo.setAccessibleName(name)
    for code, kind in catalogue.types.items():
        combo.addItem(f"{card_type_label(kind)} · {format_euros(kind.price_cents)}", code)
    combo.setCurrentIndex(max(0, combo.findData(wanted or catalogue.default)))
    return combo


def button_row(*parts: QWidget | None) -> QHBoxLayout:
    """The parts side by side; None: a stretch."""
    row = QHBoxLayout()
    for part in parts:
        if part is None:
            row.addStretch(1)
        else:
            row.addWidget(part)
    return row


def column(parent: QWidget, *parts: QWidget | QLayout | tuple[QWidget, int]) -> QVBoxLayout:
    """``parent``'s layout: the parts one under the other (a pair: a widget and its
    stretch)."""
    layout = QVBoxLayout(parent)
    for part in parts:
        if isinstance(part, tuple):
            layout.addWidget(*part)
        elif isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    return layout


def save_cancel(
    save: Callable[[], object],
    cancel: Callable[[], object],
    texts: tuple[str, str, str, str, str],
) -> tuple[QDialogButtonBox, QPushButton]:
    """Save and Cancel; ``texts``: the box's name, Save's text and name, Cancel's text
    and name."""
    box_name, save_text, save_name, cancel_text, cancel_name = texts
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
    )
    buttons.setAccessibleName(box_name)
    save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
    save_button.setText(save_text)
    save_button.setAccessibleName(save_name)
    cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
    cancel_button.setText(cancel_text)
    cancel_button.setAccessibleName(cancel_name)
    buttons.accepted.connect(save)
    buttons.rejected.connect(cancel)
    return buttons, save_button


class OpsDialog(QDialog, Generic[Ops]):
    """A dialog given what it may touch (``ops``) and the store worker that runs it;
    its error line, and its title."""

    def __init__(self, ops: Ops, runner: JobRunner, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self._ops = ops
        self._runner = runner
        self.errors = ErrorLine()
        titled(self, title)


class DocumentDialog(OpsDialog[Ops]):
    """A dialog acting on the document on screen (None: nothing on screen) for the
    operator."""

    def __init__(
        self,
        ops: Ops,
        runner: JobRunner,
        document: DeskDocument | None,
        operator: str,
        title: str,
        parent: QWidget | None,
    ) -> None:
        super().__init__(ops, runner, title, parent)
        self._document = document
        self._operator = operator

    def _document_form(self, told: QLabel, row: str, name: str) -> QFormLayout:
        """A form opening with the notice ``told`` and the document's row (``row``,
        ``document_label`` named ``name``)."""
        document = self._document
        self.document_label = plain_label(
            document_summary(document) if document is not None else "", name=name
        )
        form = QFormLayout()
        form.addRow(told)
        form.addRow(row, self.document_label)
        return form

    def _needs_document(self, action: QWidget) -> None:
        """No document on screen: ``action`` is offered disabled, and the reason said."""
        if self._document is None:
            action.setEnabled(False)
            self.errors.show_code(DialogCode.DOCUMENT_NOT_ON_SCREEN)


class SettingsScreen(QDialog):
    """A screen that saves settings, with Save and Cancel. Without the role it is shown
    disabled, with the reason; a value refused is shown at its field, nothing saved."""

    saved = Signal(list)  # the keys that changed (the shell audits them)

    def __init__(self, ops: SettingsOps, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self._ops = ops
        self.errors = ErrorLine()
        self.allowed = False
        self._refusal = ""
        titled(self, title)

    def _buttons(self, texts: tuple[str, str, str, str, str]) -> QDialogButtonBox:
        buttons, self.save_button = save_cancel(self.save, self.reject, texts)
        return buttons

    def _allow(self, allowed: bool, body: QWidget, refusal: str) -> None:
        self.allowed, self._refusal = allowed, refusal
        if not allowed:
            body.setEnabled(False)
            self.save_button.setEnabled(False)
            self.errors.show_code(refusal)

    def save(self) -> bool:
        raise NotImplementedError

    def _save(self, values: Callable[[], Mapping[str, Any]], root: QWidget) -> bool:
        """``values`` checked and saved; the keys changed announced to the running desk
        and ``saved``, then the screen closes."""
        if not self.allowed:
            self.errors.show_code(self._refusal)
            return False
        ops = self._ops
        try:
            changed = apply_settings(ops.settings, values(), ops.path)
        except AdmissionError as err:
            self._refused_at(show_refusal(self.errors, err, root))
            return False
        if changed:
            ops.announce(changed)
        self.saved.emit(changed)
        self.accept()
        return True

    def _refused_at(self, field: QWidget | None) -> None:
        """A value refused at ``field`` (a screen of tabs shows the field's tab)."""
