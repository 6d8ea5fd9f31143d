"""Opening the secure channel to a chip: PACE where EF.CardAccess offers a PACEInfo we
support, else BAC (ICAO 9303-11 §4.2: PACE first, BAC for the chips without it).

:func:`open_session` is the reader's one entry; :class:`Session` is the open channel.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from admission.chip import ChipCode
from hardware.chip.access import AccessKey, CanKey
from hardware.chip.apdu import ChipError, Transport
from hardware.chip.bac import open_bac
from hardware.chip.pace import PasswordRefused, open_pace
from hardware.chip.securityinfo import supported_pace
from hardware.chip.sm import Session

__all__ = ["Session", "open_session"]


def open_session(
    transport: Transport,
    key: AccessKey,
    card_access: bytes | None,
    *,
    rng: Callable[[int], bytes] = os.urandom,
) -> Session:
    """The secure channel opened with ``key``: PACE when ``card_access`` (EF.CardAccess,
    read in the clear) offers a supported PACEInfo, else BAC with an MRZ key.

    A wrong key is ``ChipError(ACCESS_DENIED)``; a CAN on a chip without PACE too. An MRZ
    key on a chip whose PACE refuses the MRZ and that refuses BAC is ``CAN_NEEDED`` (the
    DNIe 3.0/4.0 opens with its CAN only).
    """
    info = supported_pace(card_access)
    if info is not None:
        try:
            return open_pace(transport, key, info, rng)
        except PasswordRefused:
            if isinstance(key, CanKey):
                raise
            # The chip's PACE does not take the MRZ: BAC, and if it has none, the CAN.
            try:
                return open_bac(transport, key, rng)
            except ChipError as exc:
                raise ChipError(ChipCode.CAN_NEEDED, f"PACE wants the CAN ({exc.detail})") from None
    if isinstance(key, CanKey):
        raise ChipError(ChipCode.ACCESS_DENIED, "a CAN opens PACE only, and the chip has none")
    return open_bac(transport, key, rng)
