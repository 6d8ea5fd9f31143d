"""The desk without its server (arts. 154-155, 23.4), said across the top of the window.

:class:`ServerBanner` says that the desk cannot reach the casino's server and admits
nobody until it answers (art. 22.1: one card sequence for the operating unit), F9
giving the provisional voucher of art. 23.4; once the server answers again, it says
which local reference got which voucher number, and what was not formalised.
:func:`show_offline_document` shows a document read or typed meanwhile: shown, never
evaluated (the register and the file are the server's). Their words are the window's
(translation context ``DeskWindow``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QWidget

from ui.desk.text import bounded, message

if TYPE_CHECKING:
    from admission.documents import IdentityDocument
    from admission.vouchers.offline import FormaliseReport
    from ui.desk.widgets.identity import IdentityPanel
    from ui.desk.widgets.verdict import VerdictBanner

__all__ = [
    "FORMALISED_COLOUR",
    "OFFLINE_COLOUR",
    "ServerBanner",
    "formalised_text",
    "show_offline_document",
]

OFFLINE_COLOUR = "#8A5A00"  # amber: the desk works, but admits nobody
FORMALISED_COLOUR = "#1E5E3A"


class ServerBanner(QLabel):
    """The server cannot be reached (art. 23.4), or the provisional vouchers given
    meanwhile were numbered on it: said in bold across the top of the desk."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("offlineBanner")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setAccessibleName(QCoreApplication.translate("DeskWindow", "Estado del servidor"))
        font = self.font()
        font.setBold(True)
        font.setPointSize(max(font.pointSize(), 12))
        self.setFont(font)
        self.hide()

    def _paint(self, colour: str, text: str) -> None:
        self.setStyleSheet(
            f"QLabel#offlineBanner {{ background: {colour}; color: #FFFFFF;"
            " padding: 8px; border-radius: 6px; }"
        )
        self.setText(text)
        self.show()

    def show_offline(self) -> None:
        """Nobody is admitted until the server answers; F9 gives the voucher."""
        self._paint(
            OFFLINE_COLOUR,
            "▲ "
            + QCoreApplication.translate(
                "DeskWindow",
                "Sin conexión con el servidor del casino: no se puede admitir a nadie hasta "
                "que vuelva. F9: volante provisional (art. 23.4), contra depósito del "
                "documento y del precio.",
            ),
        )

    def show_formalised(self, text: str, *, failed: bool) -> None:
        """What the server numbered (green), or what it did not (amber)."""
        self._paint(OFFLINE_COLOUR if failed else FORMALISED_COLOUR, text)


def formalised_text(report: FormaliseReport) -> tuple[str, str]:
    """The provisional vouchers given without the server, numbered on it: which local
    reference got which number (art. 23.4), and separately what failed ("" if none)."""

    numbered = [
        QCoreApplication.translate("DeskWindow", "%1 → volante nº %2")
        .replace("%1", ref)
        .replace("%2", str(number))
        for ref, number in (*report.formalised, *report.already_formalised)
    ]
    problems = [f"{ref}: {message(str(code))}" for ref, code in report.failed]
    if report.waiting:
        problems.append(
            QCoreApplication.translate("DeskWindow", "en espera: %1").replace(
                "%1", ", ".join(report.waiting)
            )
        )
    if report.duplicates_cancelled:
        problems.append(
            QCoreApplication.translate(
                "DeskWindow", "duplicados anulados en el servidor: nº %1"
            ).replace("%1", ", ".join(str(n) for n in report.duplicates_cancelled))
        )
    parts = []
    if numbered:
        parts.append(
            QCoreApplication.translate(
                "DeskWindow",
                "Volantes provisionales numerados en el servidor: %1. Se canjean por la "
                "tarjeta en Volantes pendientes (Ctrl+Shift+V)",
            ).replace("%1", ", ".join(numbered))
        )
    if problems:
        parts.append(
            QCoreApplication.translate("DeskWindow", "No formalizados: %1").replace(
                "%1", "; ".join(problems)
            )
        )
    return bounded(" · ".join(parts), 1000), "; ".join(problems)


def show_offline_document(
    verdict: VerdictBanner, identity: IdentityPanel, document: IdentityDocument
) -> None:
    """A document read or typed while the server is away: shown, not evaluated; F9
    gives its provisional voucher (art. 23.4), Esc the next visitor."""
    verdict.show_idle()
    verdict.headline.setText("▲  " + QCoreApplication.translate("DeskWindow", "SIN SERVIDOR"))
    verdict.reasons.setText(
        QCoreApplication.translate(
            "DeskWindow", "No se puede admitir a nadie hasta que vuelva el servidor"
        )
    )
    verdict.show_progress(
        QCoreApplication.translate(
            "DeskWindow",
            "F9: volante provisional para este documento (art. 23.4) · Esc: siguiente",
        )
    )
    identity.clear()
    identity.name.setText(bounded(document.full_name, 120))
    number = document.id_number or document.document_number
    kinds = {
        "ID_CARD": QCoreApplication.translate("DeskWindow", "Documento de identidad"),
        "PASSPORT": QCoreApplication.translate("DeskWindow", "Pasaporte"),
        "DRIVING_LICENCE": QCoreApplication.translate("DeskWindow", "Permiso de conducir"),
        "RESIDENCE_CARD": QCoreApplication.translate("DeskWindow", "Tarjeta de residencia"),
    }
    other = QCoreApplication.translate("DeskWindow", "Otro documento")
    kind = kinds.get(str(document.doc_type), other)
    identity.document.setText(bounded(f"{kind} {number}", 120))
