"""``python main.py verify-card CODE``: verify an entry card's code (R8, art. 22.4).

The lead wires argparse in ``main.py``, opens the store and prints the payload as JSON.
Exit codes: 0 the card is VALID; 1 it is not (expired, voided, unknown number, tampered,
malformed, other casino, not yet valid) -- the payload says which; 2 the check could not
be made or recorded (store error): payload ``{"error": CODE, "message": ...}``.
"""

from __future__ import annotations

from typing import Any, Protocol

from admission.cards.verification import VerificationStore
from admission.cards.verification import verify_card as check_card
from admission.errors import AdmissionError
from admission.ports import Clock

__all__ = ["CardCheckStore", "verify_card", "verify_card_command"]

EXIT_VALID, EXIT_NOT_VALID, EXIT_ERROR = 0, 1, 2
CARD_CODE_SECRET = "card_code"


class CardCheckStore(VerificationStore, Protocol):
    def secret(self, name: str) -> bytes: ...


def verify_card(
    store: CardCheckStore,
    clock: Clock,
    casino_id: str,
    code: str,
    *,
    actor: str = "cli",
) -> tuple[int, dict[str, Any]]:
    """Verify ``code`` against ``store`` and record the check; ``(exit_code, payload)``."""
    try:
        key = store.secret(CARD_CODE_SECRET)
        result = check_card(
            code, key=key, casino_id=casino_id, store=store, clock=clock, actor=actor, channel="cli"
        )
    except AdmissionError as err:
        return EXIT_ERROR, {"error": err.code, "message": "the card check could not be made"}
    return (EXIT_VALID if result.ok else EXIT_NOT_VALID), result.to_json()


verify_card_command = verify_card  # the name used in the brief
