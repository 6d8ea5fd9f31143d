"""Entry cards (art. 22): a card looked up, voided or printed again by the game
director with a reason, the cards issued and not printed, and the exceptional card of
art. 23.5 issued under the director's named responsibility."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from admission.cards.catalogue import CardCatalogue
from admission.desk import AdmissionDesk, AdmissionResult, DeskDocument
from admission.desk_ports import CardPrinting, ReprintQueue
from admission.records import CardRecord
from ui.context import AppContext

__all__ = ["CardLookup", "CardOps", "ExceptionalIssue", "PrintResult", "of", "print_card"]


class CardLookup(Protocol):
    def card(self, number: int) -> CardRecord | None: ...


@dataclass(frozen=True, slots=True)
class PrintResult:
    """A print request's answer for the screen: "" = printed, else a device code."""

    number: int
    code: str


@dataclass(frozen=True, slots=True)
class ExceptionalIssue:
    result: AdmissionResult
    printed: PrintResult | None


def print_card(printing: CardPrinting, number: int, actor: str, reason: str = "") -> PrintResult:
    """Card ``number`` printed (again, with ``reason``); the device's code when not."""
    outcome = printing.print_card(printing.view_for(number), actor=actor, reprint_reason=reason)
    return PrintResult(number, "" if outcome.printed else str(outcome.code))


@dataclass(frozen=True, slots=True)
class CardOps:
    cards: CardLookup
    desk: AdmissionDesk  # voids, admits; its catalogue of card types (art. 23.2-3)
    printing: CardPrinting
    reprints: ReprintQueue

    def card(self, number: int) -> CardRecord | None:
        return self.cards.card(number)

    def void(self, number: int, reason: str, director: str) -> CardRecord:
        return self.desk.void_card(number, reason, director)

    def print(self, number: int, actor: str, reason: str = "") -> PrintResult:
        return print_card(self.printing, number, actor, reason)

    def unprinted(self) -> Sequence[CardRecord]:
        return self.reprints.unprinted_cards()

    def catalogue(self) -> CardCatalogue:
        """The card types as the settings give them now (art. 23.2-3)."""
        return self.desk.config.catalogue

    def issue_exceptional(
        self,
        document: DeskDocument,
        *,
        operator: str,
        card_type: str,
        director: str,
        printing: bool,
    ) -> ExceptionalIssue:
        """The exceptional card (art. 23.5, R12): the RIAJ, the bans and the age are
        checked all the same; printed at once when ``printing``."""
        result = self.desk.admit(
            document,
            operator=operator,
            card_type=card_type,
            authorised_by=director,
            exceptional=True,
        )
        printed = None
        if result.card is not None and printing:
            printed = self.print(result.card.number, operator)
        return ExceptionalIssue(result, printed)


def of(ctx: AppContext) -> CardOps:
    return CardOps(ctx.store, ctx.desk, ctx.card_printing, ctx.reprints)
