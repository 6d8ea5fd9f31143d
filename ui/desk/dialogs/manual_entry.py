"""Manual entry of a document without a machine-readable zone (art. 23.1: DNI, passport,
driving licence or residence card), validated as the clerk types.

The document is built by ``admission.documents.manual_document`` - the same validation
as ``admit --manual`` - so the DNI/NIE check letter, the dates and the accepted types
are checked in one place; this dialog only shows the first problem in plain Spanish
and enables Aceptar when there is none.
"""

from __future__ import annotations

from datetime import date, datetime

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from admission.documents import (
    ACCEPTED_TYPES,
    DocumentError,
    DocumentErrorCode,
    DocumentType,
    IdentityDocument,
    manual_document,
)
from admission.spanish_ids import dni_check_letter, looks_like_dni, normalise
from ui.desk.dialogs.common import ErrorLine
from ui.desk.text import message

__all__ = ["ManualEntryDialog", "ask_manual_document", "parse_typed_date"]

MAX_FIELD = 60


def parse_typed_date(text: str) -> date | None:
    """``DD/MM/AAAA`` (as printed on Spanish documents) or ``AAAA-MM-DD``."""
    raw = text.strip()
    for fmt in ("%d/%m/%Y", "%d-%m-%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(raw, fmt).date()
        except ValueError:
            continue
    return None


class ManualEntryDialog(QDialog):
    def __init__(self, today: date, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Entrada manual del documento"))
        self.setAccessibleName(self.tr("Entrada manual del documento"))
        self._today = today
        self.result_document: IdentityDocument | None = None
        self.doc_type = QComboBox()
        self.doc_type.setAccessibleName(self.tr("Tipo de documento"))
        names = {
            DocumentType.ID_CARD: self.tr("DNI / documento de identidad"),
            DocumentType.PASSPORT: self.tr("Pasaporte"),
            DocumentType.DRIVING_LICENCE: self.tr("Permiso de conducir"),
            DocumentType.RESIDENCE_CARD: self.tr("Tarjeta de residencia (NIE)"),
        }
        for kind in (
            DocumentType.ID_CARD,
            DocumentType.PASSPORT,
            DocumentType.DRIVING_LICENCE,
            DocumentType.RESIDENCE_CARD,
        ):
            assert kind in ACCEPTED_TYPES
            self.doc_type.addItem(names[kind], kind.value)
        self.issuer = self._line(self.tr("País emisor (ESP, FRA…)"), "ESP", 3)
        self.number = self._line(self.tr("Número del documento"), "", 20)
        self.surname = self._line(self.tr("Apellidos"), "", MAX_FIELD)
        self.given_names = self._line(self.tr("Nombre"), "", MAX_FIELD)
        self.birth_date = self._line(self.tr("Fecha de nacimiento (DD/MM/AAAA)"), "", 10)
        self.expiry_date = self._line(self.tr("Fecha de caducidad (DD/MM/AAAA)"), "", 10)
        self.nationality = self._line(self.tr("Nacionalidad (ESP, FRA…)"), "", 3)
        self.sex = QComboBox()
        self.sex.setAccessibleName(self.tr("Sexo"))
        for label, code in ((self.tr("X / sin indicar"), "X"), ("M", "M"), ("F", "F")):
            self.sex.addItem(label, code)
        self.errors = ErrorLine()
        self.errors.setAccessibleName(self.tr("Problema del documento"))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.setAccessibleName(self.tr("Aceptar o cancelar"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow(self.tr("Tipo"), self.doc_type)
        form.addRow(self.tr("País emisor"), self.issuer)
        form.addRow(self.tr("Número"), self.number)
        form.addRow(self.tr("Apellidos"), self.surname)
        form.addRow(self.tr("Nombre"), self.given_names)
        form.addRow(self.tr("Nacimiento"), self.birth_date)
        form.addRow(self.tr("Caducidad"), self.expiry_date)
        form.addRow(self.tr("Nacionalidad"), self.nationality)
        form.addRow(self.tr("Sexo"), self.sex)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.errors)
        layout.addWidget(self.buttons)
        self.doc_type.currentIndexChanged.connect(self.validate)
        self.sex.currentIndexChanged.connect(self.validate)
        self.validate()

    def _line(self, name: str, value: str, limit: int) -> QLineEdit:
        edit = QLineEdit(value)
        edit.setMaxLength(limit)
        edit.setAccessibleName(name)
        edit.setPlaceholderText(name)
        edit.textChanged.connect(self.validate)
        return edit

    def validate(self) -> IdentityDocument | None:
        """The document typed so far, or None with the first problem shown."""
        document, problem = self._build()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(document is not None)
        self.errors.setText(problem)
        return document

    def _build(self) -> tuple[IdentityDocument | None, str]:
        if not self.number.text().strip() or not self.surname.text().strip():
            return None, self.tr("Escriba al menos el número y los apellidos")
        birth = parse_typed_date(self.birth_date.text())
        if birth is None:
            return None, self.tr("Fecha de nacimiento: DD/MM/AAAA")
        expiry: date | None = None
        if self.expiry_date.text().strip():
            expiry = parse_typed_date(self.expiry_date.text())
            if expiry is None:
                return None, self.tr("Fecha de caducidad: DD/MM/AAAA")
        try:
            document = manual_document(
                doc_type=DocumentType(str(self.doc_type.currentData())),
                issuer=self.issuer.text(),
                number=self.number.text(),
                surname=self.surname.text(),
                given_names=self.given_names.text(),
                birth_date=birth,
                expiry_date=expiry,
                nationality=self.nationality.text(),
                sex=str(self.sex.currentData()),
                today=self._today,
            )
        except DocumentError as err:
            return None, self._explain(err)
        return document, ""

    def _explain(self, err: DocumentError) -> str:
        text = message(str(err.code))
        if err.code == DocumentErrorCode.DNI_CHECK_LETTER:
            digits = normalise(self.number.text())[:8]
            if looks_like_dni(normalise(self.number.text())) and digits.isdigit():
                text += " · " + self.tr("letra esperada: ") + dni_check_letter(int(digits))
        return text

    def accept(self) -> None:
        document = self.validate()
        if document is None:
            return
        self.result_document = document
        super().accept()


def ask_manual_document(parent: QWidget | None, today: date) -> IdentityDocument | None:
    """Show the dialog; the document typed, or None when cancelled."""
    dialog = ManualEntryDialog(today, parent)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        return dialog.result_document
    return None
