"""The identity panel: who is at the counter and what the visitor file says (art. 20.3).

Document data is shown as plain, bounded text (a document can carry anything)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QWidget

from admission.records import Ban
from ui.desk.desk_flow import DeskVerdict
from ui.desk.text import MADRID, bounded, local_date, local_time, message
from ui.desk.theme import current_theme
from ui.desk.widgets import ElidedLabel, WrappedLabel, shown_lines

__all__ = ["IdentityPanel"]

NAME_LIMIT = 120  # characters of a name shown (a document can carry anything)
DOCUMENT_LIMIT = 160
NOTES_LIMIT = 600
BANS_LIMIT = 900
VALUE_MIN_CHARS = 24  # the value column never gets narrower than this


class IdentityPanel(QGroupBox):
    """One row per fact. Single-line values are elided with the whole text as tooltip;
    the document, observations and warnings wrap and push the rows under them down."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Identidad"), parent)
        self.setAccessibleName(self.tr("Identidad del visitante"))

        def line(name: str, limit: int = 60) -> ElidedLabel:
            return ElidedLabel(name=name, limit=limit, min_chars=VALUE_MIN_CHARS)

        def lines(name: str, limit: int, max_lines: int) -> WrappedLabel:
            return WrappedLabel(
                name=name, limit=limit, max_lines=max_lines, min_chars=VALUE_MIN_CHARS
            )

        self.name = line(self.tr("Nombre"), NAME_LIMIT)
        self.document = lines(self.tr("Documento"), DOCUMENT_LIMIT, 2)
        self.age = line(self.tr("Edad"))
        self.file_number = line(self.tr("Ficha"))
        self.visits = line(self.tr("Visitas"))
        self.last_visit = line(self.tr("Última visita"))
        self.observations = lines(self.tr("Observaciones"), NOTES_LIMIT, 4)
        self.warnings = lines(self.tr("Avisos"), NOTES_LIMIT, 8)  # whole: they are read
        # the casino's bans (art. 21.2-3): reason, author, start and end, in force first
        self.bans = lines(self.tr("Prohibiciones"), BANS_LIMIT, 8)
        self.warnings.setStyleSheet(f"color: {current_theme().warning}; font-weight: bold;")
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        rows: list[tuple[str, QLabel]] = [
            (self.tr("Nombre"), self.name),
            (self.tr("Documento"), self.document),
            (self.tr("Edad"), self.age),
            (self.tr("Ficha nº"), self.file_number),
            (self.tr("Visitas"), self.visits),
            (self.tr("Última visita"), self.last_visit),
            (self.tr("Observaciones"), self.observations),
            (self.tr("Prohibición"), self.bans),
            (self.tr("Avisos"), self.warnings),
        ]
        self.row_labels: list[QLabel] = []
        for text, field in rows:
            label = QLabel(text)
            label.setAccessibleName(text)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            label.setBuddy(field)
            self.row_labels.append(label)
            form.addRow(label, field)
        self._form = form
        form.setRowVisible(self.bans, False)  # only for a person the casino banned

    def clear(self) -> None:
        for field in (
            self.name,
            self.document,
            self.age,
            self.file_number,
            self.visits,
            self.last_visit,
            self.observations,
            self.warnings,
            self.bans,
        ):
            field.setText("")
        self._form.setRowVisible(self.bans, False)

    def _kind(self, doc_type: str) -> str:
        names = {
            "ID_CARD": self.tr("Documento de identidad"),
            "PASSPORT": self.tr("Pasaporte"),
            "DRIVING_LICENCE": self.tr("Permiso de conducir"),
            "RESIDENCE_CARD": self.tr("Tarjeta de residencia"),
            "VISA": self.tr("Visado"),
            "CREW_CARD": self.tr("Certificado de tripulante"),
        }
        return names.get(doc_type, self.tr("Otro documento"))

    def show_verdict(self, verdict: DeskVerdict) -> None:
        doc = verdict.evaluation.document
        self.name.setText(f"{doc.given_names} {doc.surname}".strip())
        number = doc.id_number or doc.document_number
        expiry = getattr(doc, "expiry_date", None)
        kind = self._kind(str(getattr(doc, "doc_type", "")))
        text = f"{kind} {number} · {doc.nationality}"
        if expiry is not None:
            text += " · " + self.tr("caduca") + " " + local_date(expiry)
        self.document.setText(bounded(text, DOCUMENT_LIMIT))
        self.age.setText(self.tr("—") if verdict.age is None else str(verdict.age))
        self.file_number.setText(
            self.tr("nueva (primera visita)")
            if verdict.file_number is None
            else str(verdict.file_number)
        )
        self.visits.setText(str(verdict.visits))
        self.last_visit.setText(local_time(verdict.last_visit) or self.tr("—"))
        self.observations.setText(shown_lines(verdict.observations, NOTES_LIMIT))
        self.warnings.setStyleSheet(f"color: {current_theme().warning}; font-weight: bold;")
        warnings = ("⚠ " + message(c) for c in verdict.warnings)
        self.warnings.setText(shown_lines(warnings, NOTES_LIMIT))
        shown = self.ban_lines(verdict.evaluation.bans, verdict.ended_bans)
        self.bans.setStyleSheet(f"color: {current_theme().warning};")
        self.bans.setText(shown_lines(shown, BANS_LIMIT))
        self._form.setRowVisible(self.bans, bool(shown))

    def show_file_number(self, number: int) -> None:
        """The file the visit on screen was recorded in (a first visit's new file)."""
        self.file_number.setText(str(number))

    def ban_lines(self, in_force: Sequence[Ban], ended: Sequence[Ban]) -> list[str]:
        """One line per ban: in force first, then the ended ones (the past offence).
        The reason and the author are the director's text: plain, bounded."""
        shown: list[str] = []
        for ban, active in [*((b, True) for b in in_force), *((b, False) for b in ended)]:
            if active:
                until = (
                    self.tr("hasta %1").replace("%1", local_time(ban.expires_at))
                    if ban.expires_at is not None
                    else self.tr("sin fecha de fin")
                )
                head = self.tr("En vigor")
            elif ban.lifted_at is not None:
                until = self.tr("levantada el %1").replace("%1", local_time(ban.lifted_at))
                head = self.tr("Anterior")
            else:
                assert ban.expires_at is not None  # ended, not lifted: it expired
                until = self.tr("terminó el %1").replace("%1", local_time(ban.expires_at))
                head = self.tr("Anterior")
            line = (
                self.tr("%1: «%2», decidida por %3 el %4, %5")
                .replace("%1", head)
                .replace("%2", bounded(ban.reason, 160))
                .replace("%3", bounded(ban.decided_by, 40))
                .replace("%4", local_date(ban.created_at.astimezone(MADRID).date()))
                .replace("%5", until)
            )
            shown.append(line)
        return shown
