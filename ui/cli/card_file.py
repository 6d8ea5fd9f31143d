"""An issued card is never lost to what comes after it (art. 22.1: the number is taken
when the card is recorded). Writing its PDF may still fail - a full disk, a folder that
refuses it, a rendering error - and then the answer says so beside the card number,
with exit 0: the card stays issued and unprinted, in the reprint queue."""

from __future__ import annotations

import logging
from typing import Any

from admission.errors import DeviceError
from ui.cli.result import described
from ui.context import AppContext

log = logging.getLogger(__name__)


def file_card(ctx: AppContext, number: int) -> dict[str, Any]:
    """``{"card_pdf": PATH}``, or ``{"card_pdf": None, "card_error": {...},
    "in_reprint_queue": True}`` when the PDF could not be written."""
    try:
        return {"card_pdf": str(ctx.card_files.write(number))}
    except DeviceError as err:
        log.warning("card %d issued, its PDF not written: %s", number, err.code)
        return {
            "card_pdf": None,
            "card_error": described(err.code, str(err)),
            "in_reprint_queue": True,
        }
