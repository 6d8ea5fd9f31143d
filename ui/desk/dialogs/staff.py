"""The casino's staff list (art. 18, R15): staff and game directors may not play.

Adding or removing someone is the game director's act, confirmed with their own
credentials; the visitor file records each change under the director's user name
(``STAFF_SET``, the identity only as a keyed hash). Removing keeps the row, inactive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLineEdit,
    QPushButton,
    QWidget,
)

from admission.errors import AdmissionError
from admission.records import StaffMember, StaffRole
from ui.desk.dialogs.common import (
    Authorise,
    DialogCode,
    Listings,
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
from ui.desk.ops.staff import StaffOps
from ui.desk.text import bounded

__all__ = ["StaffDialog"]

MAX_NAME = 120


class StaffDialog(OpsDialog[StaffOps]):
    def __init__(
        self,
        ops: StaffOps,
        runner: JobRunner,
        authorise: Authorise,
        *,
        listings: Listings,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(ops, runner, self.tr("Personal del casino (art. 18)"), parent)
        self._authorise = authorise
        self._listings = listings
        self._shown: list[StaffMember] = []
        self.table = list_table(
            [self.tr("Nombre"), self.tr("Identidad"), self.tr("Función"), self.tr("Estado")],
            self.tr("Lista del personal"),
        )

        box = QGroupBox(self.tr("Añadir al personal"))
        box.setAccessibleName(box.title())
        self.identity_edit = identity_entry(
            self.tr("Identidad: DNI/NIE o TIPO:PAÍS:NÚMERO"), self.tr("DNI/NIE o TIPO:PAÍS:NÚMERO")
        )
        self.name_edit = QLineEdit()
        self.name_edit.setAccessibleName(self.tr("Nombre y apellidos"))
        self.name_edit.setMaxLength(MAX_NAME)
        self.role_combo = QComboBox()
        self.role_combo.setAccessibleName(self.tr("Función"))
        self.role_combo.addItem(self.tr("Personal"), StaffRole.STAFF.value)
        self.role_combo.addItem(self.tr("Director de juegos"), StaffRole.DIRECTOR.value)
        self.add_button = QPushButton(self.tr("&Añadir…"))
        self.add_button.setAccessibleName(self.tr("Añadir al personal (pide al director)"))
        self.add_button.clicked.connect(self.add_member)
        form = QFormLayout(box)
        form.addRow(self.tr("&Identidad:"), self.identity_edit)
        form.addRow(self.tr("&Nombre:"), self.name_edit)
        form.addRow(self.tr("&Función:"), self.role_combo)
        form.addRow(self.add_button)

        self.remove_button = QPushButton(self.tr("&Dar de baja la fila seleccionada…"))
        self.remove_button.setAccessibleName(
            self.tr("Dar de baja a la persona seleccionada (pide al director)")
        )
        self.remove_button.clicked.connect(self.remove_member)

        row = button_row(None, self.remove_button)
        column(self, (self.table, 1), row, box, self.errors, close_box(self))
        self.resize(700, 520)
        self.refresh()

    def refresh(self) -> None:
        run_job(self._runner, self._listings.staff_members, self._fill, self.errors)

    def _fill(self, members: Sequence[StaffMember]) -> None:
        self._shown = list(members)
        self.table.setRowCount(len(self._shown))
        for row, member in enumerate(self._shown):
            role = (
                self.tr("Director de juegos")
                if member.role is StaffRole.DIRECTOR
                else self.tr("Personal")
            )
            cells = (
                bounded(member.name, MAX_NAME),
                member.identity.text,
                role,
                self.tr("Activo") if member.active else self.tr("De baja"),
            )
            fill_row(self.table, row, cells)
        self.table.resizeColumnsToContents()

    def shown_members(self) -> list[StaffMember]:
        return list(self._shown)

    def _save(
        self,
        member: StaffMember,
        purpose: str,
        done_text: str,
        busy: QWidget,
        clear: bool = False,
    ) -> None:
        director = with_director(self._authorise, purpose, self.errors)
        if director is None:
            return
        ops, now = self._ops, self._ops.now()

        def done(_: None) -> None:
            if clear:
                self.identity_edit.clear()
                self.name_edit.clear()
            self.refresh()
            self.errors.show_info(done_text)

        run_job(
            self._runner,
            lambda: ops.save(member, director.username, now),
            done,
            self.errors,
            busy,
        )

    def add_member(self) -> None:
        try:
            identity = identity_from_entry(self.identity_edit.text())
        except AdmissionError as err:
            self.errors.show_error(err)
            return
        name = " ".join(self.name_edit.text().split())
        if not name:
            self.errors.show_code(DialogCode.FIELD_REQUIRED)
            return
        member = StaffMember(identity, name, StaffRole(self.role_combo.currentData()))
        self._save(
            member,
            self.tr("Añadir al personal (art. 18)"),
            self.tr("Añadido al personal"),
            self.add_button,
            clear=True,
        )

    def remove_member(self) -> None:
        row = self.table.currentRow()
        if not 0 <= row < len(self._shown):
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return
        member = replace(self._shown[row], active=False)
        self._save(
            member,
            self.tr("Dar de baja del personal (art. 18)"),
            self.tr("Dado de baja"),
            self.remove_button,
        )
