"""The desk window's side of one presentation, one record (arts. 20.3, 22).

The controller (:class:`ui.desk.controller.DeskController`) decides what a presentation is;
this part of the window says it to the clerk:

* a verdict on screen is never replaced silently: a document read behind it waits, and
  a strip above the banner says how many wait and that Enter confirms or Esc dismisses
  the one on screen;
* the same document read again while its verdict is on screen is ignored, said in the
  status bar;
* a person who holds a valid card (art. 22) gets the neutral "YA ADMITIDO" with the
  card's number and validity, its own sound, and Ctrl+R to reprint that card with a
  reason (the game director's decision, as every reprint);
* a register that cannot be checked (art. 20.1-2) is "NO ADMITIDO", not a refusal;
* the banner of an admission says the card type and price Enter will charge.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel

from admission.cards.view import format_euros
from admission.desk import OVERRIDABLE, AdmissionResult, Evaluation
from admission.devices import Sound
from admission.records import CardRecord
from admission.verdict import Outcome, Reason
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.dialogs.cards import CardActionsDialog
from ui.desk.host import DeskHost
from ui.desk.ops import cards
from ui.desk.text import bounded, local_date, message

__all__ = ["REPRINT_HELD_KEYS", "WAITING_COLOUR", "PresentationView"]

REPRINT_HELD_KEYS = "Ctrl+R"
WAITING_COLOUR = "#9A5B00"  # amber, dark enough for white text (5.4:1): waits for a key
_SOUNDS = {Outcome.ADMIT: Sound.ADMIT, Outcome.ALREADY_ADMITTED: Sound.REENTRY}


class PresentationView(QObject):
    """Built by the window over its controller and banner (through the window's API,
    ``window``); :meth:`attach` once the window's menus exist."""

    def __init__(self, window: DeskHost, ctx: AppContext) -> None:
        super().__init__(window.window())
        self._window = window
        self._ctx = ctx
        self.card_on_screen: int | None = None  # the card the banner tells about
        self.waiting_label = QLabel()
        self.waiting_label.setObjectName("waitingBanner")
        self.waiting_label.setTextFormat(Qt.TextFormat.PlainText)
        self.waiting_label.setWordWrap(True)
        self.waiting_label.setAccessibleName(self.tr("Documentos en espera"))
        self.waiting_label.setStyleSheet(
            f"QLabel#waitingBanner {{ background: {WAITING_COLOUR}; color: #FFFFFF;"
            " padding: 6px; border-radius: 6px; font-weight: bold; }"
        )
        font = self.waiting_label.font()
        font.setPointSize(max(font.pointSize(), 15))  # read at arm's length, standing
        self.waiting_label.setFont(font)
        self.waiting_label.hide()
        self.reprint_held_action = QAction(
            self.tr("Reimprimir la tarjeta que ya tiene…"), window.window()
        )
        self.reprint_held_action.setObjectName("action_reprint_held")
        self.reprint_held_action.setShortcut(QKeySequence(REPRINT_HELD_KEYS))
        self.reprint_held_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.reprint_held_action.triggered.connect(lambda _checked=False: self.open_reprint_held())
        self.reprint_held_action.setEnabled(False)
        self.dialog: CardActionsDialog | None = None

    def attach(self, menu: str) -> None:
        """The reprint in menu ``menu``; the controller's presentation signals."""
        self._window.add_action(menu, self.reprint_held_action)
        c = self._window.controller
        c.document_waiting.connect(self.show_waiting)
        c.presentation_repeated.connect(self.say_repeated)
        c.verdict_confirmed.connect(self.show_confirmed)
        c.cleared.connect(self._forget)

    # -- the verdict -------------------------------------------------------------------
    def sound_of(self, outcome: Outcome) -> Sound:
        return _SOUNDS.get(outcome, Sound.REFUSE)

    def paint(self, evaluation: Evaluation, outcome: Outcome, codes: tuple[str, ...]) -> None:
        """The banner for ``outcome``: a re-entry names the card held and its validity;
        an admission, the type and price Enter charges."""
        banner = self._window.verdict
        banner.show_verdict(outcome.value, codes)
        held = evaluation.held_card
        reentry = outcome is Outcome.ALREADY_ADMITTED and held is not None
        if reentry and held is not None:
            banner.show_reasons(self.held_text(held, codes))
        self.reprint_held_action.setEnabled(reentry)
        self.card_on_screen = None
        self.show_charge()

    def held_text(self, held: CardRecord, codes: tuple[str, ...]) -> str:
        first = (
            self.tr("Ya admitido: tarjeta nº %1, válida hasta la sesión del %2")
            .replace("%1", str(held.number))
            .replace("%2", local_date(held.valid_until))
        )
        others = [message(c) for c in codes if c != Reason.ALREADY_ADMITTED.value]
        return "\n".join([first, *others])

    def charge_text(self) -> str:
        """What Enter charges: the card type chosen and its price (art. 23.2-3)."""
        code = self._window.controller.card_type
        return (
            self.tr("Intro: cobrar %1 · %2 e imprimir la tarjeta · F1-F8: otro tipo")
            .replace("%1", self._window.card_label(code))
            .replace("%2", self._price(code))
        )

    def _price(self, code: str) -> str:
        """The price of card type ``code`` as the desk charges it (art. 23.2-3)."""
        catalogue = self._ctx.desk.config.catalogue
        return format_euros(catalogue.types[code].price_cents if code in catalogue.types else 0)

    def show_charge(self) -> None:
        """On an admission not yet recorded (or a director's case Enter may admit),
        the banner says the type and price Enter will charge."""
        controller = self._window.controller
        current = controller.current
        if controller.state is not DeskState.SHOWN or current is None:
            return
        verdict = current.evaluation.verdict
        overridable = verdict.outcome is Outcome.SUPERVISOR and all(
            r in OVERRIDABLE for r in verdict.reasons
        )
        held = current.evaluation.held_card
        if verdict.outcome is Outcome.ADMIT and held is not None:
            # a pass of several entries (art. 23.2): Enter records the visit on the
            # card held, and neither charges nor prints a new one
            self._window.verdict.show_progress(
                self.tr(
                    "Intro: entra con su abono, tarjeta nº %1 válida hasta la sesión del %2"
                    " · sin cobro"
                )
                .replace("%1", str(held.number))
                .replace("%2", local_date(held.valid_until))
            )
        elif verdict.outcome is Outcome.ADMIT:
            self._window.verdict.show_progress(self.charge_text())
        elif overridable:
            # one Enter: the director's authorisation, then the charge of the type shown
            self._window.verdict.show_progress(
                self.tr(
                    "Intro: autorización del director de juegos, cobrar %1 · %2 e imprimir"
                    " · F1-F8: otro tipo"
                )
                .replace("%1", self._window.card_label(controller.card_type))
                .replace("%2", self._price(controller.card_type))
            )

    # -- recorded -----------------------------------------------------------------------
    def show_recorded(self, result: AdmissionResult) -> None:
        """The record of the verdict on screen, said under it."""
        self.paint(result.evaluation, result.verdict.outcome, result.verdict.codes)
        file_number = result.recorded.file_number
        outcome = result.verdict.outcome
        if result.card is not None:
            self.card_on_screen = result.card.number
            text = (
                self.tr("Registrado en la ficha %1 · imprimiendo la tarjeta nº %2…")
                .replace("%1", str(file_number))
                .replace("%2", str(result.card.number))
            )
        elif result.existing_card is not None and result.admitted:
            text = (
                self.tr("Registrado en la ficha %1 · entra con la tarjeta nº %2")
                .replace("%1", str(file_number))
                .replace("%2", str(result.existing_card.number))
            )
        elif result.reentry and result.existing_card is not None:
            text = (
                self.tr(
                    "Reentrada registrada en la ficha %1 (no es una visita nueva) · Ctrl+R: "
                    "reimprimir la tarjeta nº %2 · Intro: visto"
                )
                .replace("%1", str(file_number))
                .replace("%2", str(result.existing_card.number))
            )
        elif outcome is Outcome.NOT_ADMITTED:
            text = self.tr(
                "No admitido, registrado en la ficha %1 (no es una denegación) · Intro: visto"
            ).replace("%1", str(file_number))
        else:
            text = self.tr("Denegación registrada en la ficha %1 · Intro: visto").replace(
                "%1", str(file_number)
            )
        self._window.verdict.show_progress(text)

    def dismissal_text(self, result: AdmissionResult) -> str:
        """A verdict recorded as it went from the screen (Esc, a lock, closing)."""
        number = str(result.recorded.file_number)
        if result.verdict.outcome is Outcome.NOT_ADMITTED:
            return self.tr(
                "No admitido: descartado por el empleado, registrado en la ficha %1"
            ).replace("%1", number)
        return self.tr("Denegación registrada en la ficha %1").replace("%1", number)

    def show_confirmed(self) -> None:
        self._window.verdict.show_progress(self.tr("Visto · lea el siguiente documento"))

    # -- one presentation, one record ---------------------------------------------------
    def show_waiting(self, count: int) -> None:
        """Documents read behind the verdict on screen: said above it until it is
        settled (never replaced silently)."""
        if count <= 0:
            self.waiting_label.hide()
            return
        self.waiting_label.setText(
            "► "
            + self.tr(
                "Documentos en espera: %1. Intro confirma y Esc descarta el veredicto en "
                "pantalla; después se comprueba el siguiente"
            ).replace("%1", str(count))
        )
        self.waiting_label.show()

    def say_repeated(self) -> None:
        self._window.status.showMessage(
            self.tr("El mismo documento otra vez: ya está en pantalla, se registra una vez"),
            8_000,
        )

    def _forget(self) -> None:
        self.card_on_screen = None
        self.reprint_held_action.setEnabled(False)

    # -- the reprint of the card held (art. 22) -----------------------------------------
    def open_reprint_held(self) -> CardActionsDialog | None:
        """Ctrl+R on "YA ADMITIDO": the card held, looked up, with the reason to write
        and the director's confirmation (as every reprint); its number is kept."""
        window = self._window
        current = window.controller.current
        held = None if current is None else current.evaluation.held_card
        if held is None or window.authorise is None or window.runner is None:
            window.status.showMessage(
                bounded(self.tr("No hay en pantalla una tarjeta que reimprimir"), 160), 8_000
            )
            return None
        dialog = CardActionsDialog(
            cards.of(self._ctx),
            window.runner,
            window.authorise,
            number=held.number,
            parent=window.window(),
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.reprint_button.setDefault(True)  # Enter in the dialog reprints
        dialog.open()
        dialog.reason.setFocus()
        self.dialog = dialog
        return dialog
