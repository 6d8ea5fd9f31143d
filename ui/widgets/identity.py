"""The identity panel: who is at the counter and what the visitor file says (art. 20.3).

Document data is shown as plain, bounded text (a document can carry anything)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QWidget

from ui.desk_flow import DeskVerdict
from ui.dialogs.common import bounded, local_date, local_time, message, plain_label
from ui.widgets import shown_lines

__all__ = ["IdentityPanel"]


class IdentityPanel(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Identidad"), parent)
        self.setAccessibleName(self.tr("Identidad del visitante"))
        self.name = plain_label(name=self.tr("Nombre"))
        self.document = plain_label(name=self.tr("Documento"))
        self.age = plain_label(name=self.tr("Edad"))
        self.file_number = plain_label(name=self.tr("Ficha"))
        self.visits = plain_label(name=self.tr("Visitas"))
        self.last_visit = plain_label(name=self.tr("Última visita"))
        self.observations = plain_label(name=self.tr("Observaciones"), limit=600)
        self.warnings = plain_label(name=self.tr("Avisos"), limit=600)
        self.warnings.setStyleSheet("color: #FFB74D; font-weight: bold;")
        form = QFormLayout(self)
        rows: list[tuple[str, QLabel]] = [
            (self.tr("Nombre"), self.name),
            (self.tr("Documento"), self.document),
            (self.tr("Edad"), self.age),
            (self.tr("Ficha nº"), self.file_number),
            (self.tr("Visitas"), self.visits),
            (self.tr("Última visita"), self.last_visit),
            (self.tr("Observaciones"), self.observations),
            (self.tr("Avisos"), self.warnings),
        ]
        for label, field in rows:
            form.addRow(label, field)

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
        ):
            field.setText("")

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
        self.name.setText(_cut(f"{doc.given_names} {doc.surname}".strip(), 120))
        number = doc.id_number or doc.document_number
        expiry = getattr(doc, "expiry_date", None)
        kind = self._kind(str(getattr(doc, "doc_type", "")))
        text = f"{kind} {number} · {doc.nationality}"
        if expiry is not None:
            text += " · " + self.tr("caduca") + " " + local_date(expiry)
        self.document.setText(_cut(text, 120))
        self.age.setText(self.tr("—") if verdict.age is None else str(verdict.age))
        self.file_number.setText(
            self.tr("nueva (primera visita)")
            if verdict.file_number is None
            else str(verdict.file_number)
        )
        self.visits.setText(str(verdict.visits))
        self.last_visit.setText(local_time(verdict.last_visit) or self.tr("—"))
        self.observations.setText(shown_lines(verdict.observations, 600))
        self.warnings.setText(shown_lines(("⚠ " + message(c) for c in verdict.warnings), 600))


def _cut(value: str, limit: int) -> str:
    return bounded(value, limit)
