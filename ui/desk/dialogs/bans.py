"""The casino's internal bans (art. 21.2-3, R5): list, add and lift, by the game director.

A ban is the director's decision: it is written only after the director has confirmed
with their own credentials (``authorise``), and the visitor file records it, dated and
reasoned, under the director's user name (the store audits it). Lifting one keeps the
ban and records why it was lifted.

The list names the person (from the visitor file, when the person ever came in) beside
the identity, can be narrowed by typing any part of a name, identity, reason or author
(accent- and case-insensitive, in what is shown), and shows the history: the bans lifted
or expired, with when and why. Every reading is audited (BAN_QUERY, BAN_LIST,
BAN_HISTORY; art. 20.4).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from datetime import date, datetime, time

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from admission.errors import AdmissionError
from admission.identity import IdentityKey
from admission.records import Ban
from ui.desk.dialogs.common import (
    Authorise,
    DialogCode,
    Listings,
    ReasonField,
    close_box,
    identity_from_entry,
    run_job,
    with_director,
)
from ui.desk.dialogs.scaffold import (
    OpsDialog,
    button_row,
    column,
    fill_row,
    identity_entry,
    list_table,
)
from ui.desk.jobs import JobRunner
from ui.desk.ops.bans import BanOps, NamedBans
from ui.desk.text import MADRID, bounded, local_time

__all__ = ["BansDialog"]


class BansDialog(OpsDialog[BanOps]):
    """Bans of one person (typed or from the document on screen) or all in force."""

    bans_changed = Signal()

    def __init__(
        self,
        ops: BanOps,
        runner: JobRunner,
        authorise: Authorise,
        *,
        operator: str,
        listings: Listings | None = None,
        identity: IdentityKey | None = None,
        parent: QWidget | None = None,
    ) -> None:
        title = self.tr("Prohibiciones de entrada del casino (art. 21.2-3)")
        super().__init__(ops, runner, title, parent)
        self._authorise = authorise
        self._operator = operator  # the signed-in user: reading the list is audited
        self._listings = listings
        self._shown: list[Ban] = []
        self._names: dict[int, str] = {}  # ban id -> the person's name in the file
        self.identity_edit = identity_entry(
            self.tr("Identidad: DNI/NIE o TIPO:PAÍS:NÚMERO"), self.tr("DNI/NIE o TIPO:PAÍS:NÚMERO")
        )
        if identity is not None:
            self.identity_edit.setText(identity.text)
        self.find_button = QPushButton(self.tr("&Buscar"))
        self.find_button.setAccessibleName(self.tr("Buscar las prohibiciones de esta persona"))
        self.find_button.clicked.connect(self.show_person)
        self.all_button = QPushButton(self.tr("&Todas en vigor"))
        self.all_button.setAccessibleName(self.tr("Ver todas las prohibiciones en vigor"))
        self.all_button.setEnabled(listings is not None)
        self.all_button.clicked.connect(self.show_all)
        self.history_button = QPushButton(self.tr("&Historial"))
        self.history_button.setAccessibleName(
            self.tr("Ver las prohibiciones levantadas o terminadas")
        )
        self.history_button.setEnabled(listings is not None)
        self.history_button.clicked.connect(self.show_history)
        find_row = QHBoxLayout()
        find_row.addWidget(self.identity_edit, 1)
        for button in (self.find_button, self.all_button, self.history_button):
            find_row.addWidget(button)
        self.filter_edit = QLineEdit()
        self.filter_edit.setAccessibleName(
            self.tr("Filtrar la lista por nombre, identidad o motivo")
        )
        self.filter_edit.setPlaceholderText(
            self.tr("Filtrar: nombre, identidad, motivo, director…")
        )
        self.filter_edit.setMaxLength(60)
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.apply_filter)

        self.table = list_table(
            [
                self.tr("Nº"),
                self.tr("Nombre"),
                self.tr("Identidad"),
                self.tr("Motivo"),
                self.tr("Decidida por"),
                self.tr("Desde"),
                self.tr("Hasta"),
            ],
            self.tr("Lista de prohibiciones"),
        )

        add_box = QGroupBox(self.tr("Nueva prohibición"))
        add_box.setAccessibleName(add_box.title())
        self.add_reason = ReasonField(self.tr("Motivo de la prohibición"))
        self.expires_check = QCheckBox(self.tr("Con fecha de fin"))
        self.expires_check.setAccessibleName(self.tr("La prohibición tiene fecha de fin"))
        self.expires_edit = QDateEdit()
        self.expires_edit.setAccessibleName(self.tr("Fecha de fin de la prohibición"))
        self.expires_edit.setCalendarPopup(True)
        self.expires_edit.setDisplayFormat("dd/MM/yyyy")
        today = ops.today()
        self.expires_edit.setDate(QDate(today.year, today.month, today.day).addMonths(6))
        self.expires_edit.setEnabled(False)
        self.expires_check.toggled.connect(self.expires_edit.setEnabled)
        self.add_button = QPushButton(self.tr("&Prohibir la entrada…"))
        self.add_button.setAccessibleName(self.tr("Añadir la prohibición (pide al director)"))
        self.add_button.clicked.connect(self.add_ban)
        add_form = QFormLayout(add_box)
        add_form.addRow(self.tr("Motivo:"), self.add_reason)
        expiry_row = QHBoxLayout()
        expiry_row.addWidget(self.expires_check)
        expiry_row.addWidget(self.expires_edit, 1)
        add_form.addRow(expiry_row)
        add_form.addRow(self.add_button)

        lift_box = QGroupBox(self.tr("Levantar la prohibición seleccionada"))
        lift_box.setAccessibleName(lift_box.title())
        self.lift_reason = ReasonField(self.tr("Motivo para levantar la prohibición"))
        self.lift_button = QPushButton(self.tr("&Levantar…"))
        self.lift_button.setAccessibleName(self.tr("Levantar la prohibición (pide al director)"))
        self.lift_button.clicked.connect(self.lift_ban)
        lift_form = QFormLayout(lift_box)
        lift_form.addRow(self.tr("Motivo:"), self.lift_reason)
        lift_form.addRow(self.lift_button)

        boxes = button_row(add_box, lift_box)
        column(
            self, find_row, self.filter_edit, (self.table, 1), boxes, self.errors, close_box(self)
        )
        self.resize(980, 560)
        if identity is not None:
            self.show_person()

    # -- reading -------------------------------------------------------------------
    def _identity(self) -> IdentityKey | None:
        try:
            return identity_from_entry(self.identity_edit.text())
        except AdmissionError as err:
            self.errors.show_error(err)
            return None

    def show_person(self) -> None:
        identity = self._identity()
        if identity is None:
            return
        ops, now, actor = self._ops, self._ops.now(), self._operator
        run_job(
            self._runner, lambda: ops.of_person(identity, actor, now), self._fill_named, self.errors
        )

    def show_all(self) -> None:
        self._show_listed("BAN_LIST", lambda listings, now: listings.bans_in_force(now))

    def show_history(self) -> None:
        """The bans lifted or expired (art. 21.3: kept, dated and reasoned)."""
        self._show_listed("BAN_HISTORY", lambda listings, now: listings.bans_ended(now))

    def _show_listed(
        self, action: str, read: Callable[[Listings, datetime], Sequence[Ban]]
    ) -> None:
        """The casino's bans ``read`` gives, the reading recorded as ``action``."""
        listings, ops = self._listings, self._ops
        if listings is None:
            return
        now, actor = ops.now(), self._operator
        run_job(
            self._runner,
            lambda: ops.listed(listings, read, action, actor, now),
            self._fill_named,
            self.errors,
        )

    def _fill_named(self, found: NamedBans) -> None:
        bans, names = found
        self._names = dict(names)
        self._fill(bans)

    def _fill(self, bans: Sequence[Ban]) -> None:
        self._shown = list(bans)
        now = self._ops.now()
        self.table.setRowCount(len(self._shown))
        for row, ban in enumerate(self._shown):
            until = local_time(ban.expires_at) or self.tr("sin fin")
            if ban.lifted_at is not None:
                until = (
                    self.tr("levantada el %1: %2")
                    .replace("%1", local_time(ban.lifted_at))
                    .replace("%2", bounded(ban.lift_reason, 120))
                )
            elif not ban.active_at(now):
                until = self.tr("vencida el %1").replace("%1", local_time(ban.expires_at))
            cells = (
                str(ban.ban_id),
                bounded(self._names.get(ban.ban_id, ""), 80) or self.tr("(sin ficha)"),
                ban.identity.text,
                bounded(ban.reason, 120),
                bounded(ban.decided_by, 60),
                local_time(ban.created_at),
                until,
            )
            fill_row(self.table, row, cells)
        self.table.resizeColumnsToContents()
        self.apply_filter()
        if self._shown:
            self.table.selectRow(0)
        else:
            self.errors.show_info(self.tr("Sin prohibiciones"))

    def apply_filter(self) -> None:
        """Rows holding every word typed (name, identity, reason, author...), accents
        and case aside; the others are hidden, never dropped."""
        words = _folded(self.filter_edit.text()).split()
        for row in range(self.table.rowCount()):
            cells = (self.table.item(row, c) for c in range(self.table.columnCount()))
            text = _folded(" ".join(c.text() for c in cells if c is not None))
            self.table.setRowHidden(row, not all(w in text for w in words))

    def shown_bans(self) -> list[Ban]:
        return list(self._shown)

    def visible_bans(self) -> list[Ban]:
        """The bans listed and not hidden by the filter."""
        return [b for r, b in enumerate(self._shown) if not self.table.isRowHidden(r)]

    # -- the director's decisions ----------------------------------------------------
    def _expiry(self) -> datetime | None:
        if not self.expires_check.isChecked():
            return None
        qdate = self.expires_edit.date()
        day = date(qdate.year(), qdate.month(), qdate.day())
        # ends at the start of that Madrid day
        return datetime.combine(day, time(0, 0), MADRID)

    def add_ban(self) -> None:
        identity = self._identity()
        reason = self.add_reason.reason()
        if identity is None:
            return
        if not reason:
            self.errors.show_code("REASON_REQUIRED")
            return
        director = with_director(
            self._authorise, self.tr("Prohibir la entrada (art. 21.2-3)"), self.errors
        )
        if director is None:
            return
        ops, expires = self._ops, self._expiry()

        def done(ban: Ban) -> None:
            self.add_reason.clear()
            self.bans_changed.emit()
            self.show_person()
            self.errors.show_info(self.tr("Prohibición registrada"))

        run_job(
            self._runner,
            lambda: ops.add(identity, reason, director.username, expires),
            done,
            self.errors,
            self.add_button,
        )

    def lift_ban(self) -> None:
        row = self.table.currentRow()
        if not 0 <= row < len(self._shown):
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return
        ban = self._shown[row]
        reason = self.lift_reason.reason()
        if not reason:
            self.errors.show_code("REASON_REQUIRED")
            return
        director = with_director(
            self._authorise, self.tr("Levantar una prohibición (art. 21.2-3)"), self.errors
        )
        if director is None:
            return
        ops = self._ops

        def done(_: None) -> None:
            self.lift_reason.clear()
            self.bans_changed.emit()
            self.identity_edit.setText(ban.identity.text)
            self.show_person()
            self.errors.show_info(self.tr("Prohibición levantada"))

        run_job(
            self._runner,
            lambda: ops.lift(ban.ban_id, reason, director.username),
            done,
            self.errors,
            self.lift_button,
        )


def _folded(text: str) -> str:
    """Lower case without accents (``Peña`` and ``pena`` match)."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
