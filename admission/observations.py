"""Free-text observations on the visitor file (art. 20.3, R2).

Art. 20.3 names "observaciones" as part of each visitor's file, beside the name, the
document number and the dates of the visits. The clerk at the counter and the game
director write them (a complaint made, a behaviour seen, a leave the director gave);
the inspectors read them (art. 20.4) and never write. An observation is kept with its
author and date, audited in the same transaction as the row (the store's
``OBSERVATION`` entry), shown on the identity panel at the visitor's next visit,
corrected only by a rectification (:mod:`admission.data_protection`, GDPR art. 16) and
erased with the file by the six-month purge (art. 20.4).

The text is untrusted input like any other typed at the desk (STYLE.md rule 14):
1-500 characters of plain text, control characters refused, whitespace collapsed.
"""

from __future__ import annotations

from datetime import datetime
from enum import unique
from typing import Protocol

from admission.accounts import Operator, Role
from admission.codes import Code
from admission.data_protection import MAX_OBSERVATION, DataProtectionError, clean_observation
from admission.errors import AdmissionError, NotFoundError
from admission.ports import Clock
from admission.records import Observation

__all__ = [
    "MAX_OBSERVATION",
    "OBSERVATION_ROLES",
    "ObservationCode",
    "ObservationError",
    "ObservationService",
    "ObservationStore",
]

# the counter's clerk and the game director; an inspector reads, an administrator
# keeps accounts and settings (roles are separate duties)
OBSERVATION_ROLES = (Role.CLERK, Role.DIRECTOR)
MAX_FILE_NUMBER = 2**62


@unique
class ObservationCode(Code):
    """Why an observation is not added."""

    OBSERVATION_ROLE_REQUIRED = "OBSERVATION_ROLE_REQUIRED"  # a clerk or the director
    OBSERVATION_TEXT_INVALID = "OBSERVATION_TEXT_INVALID"  # 1-500 characters, plain text
    OBSERVATION_FILE_UNKNOWN = "OBSERVATION_FILE_UNKNOWN"  # no file with that number


class ObservationError(AdmissionError):
    code: Code = ObservationCode.OBSERVATION_TEXT_INVALID


class ObservationStore(Protocol):
    """The store's side (``VisitorFile.add_observation``): the row and its audit entry
    in one transaction; NotFoundError for a file number the file does not hold."""

    def add_observation(
        self, file_number: int, text: str, author: str, at: datetime
    ) -> Observation: ...


class ObservationService:
    """Adds an observation under the signed-in operator's name (the checks here, so
    the window and the command line get the same ones)."""

    def __init__(self, store: ObservationStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def add(self, operator: Operator, file_number: int, text: str) -> Observation:
        if not any(operator.has(role) for role in OBSERVATION_ROLES):
            raise ObservationError(
                "a clerk or the game director", code=ObservationCode.OBSERVATION_ROLE_REQUIRED
            )
        if (
            isinstance(file_number, bool)
            or not isinstance(file_number, int)
            or not 1 <= file_number < MAX_FILE_NUMBER
        ):
            raise ObservationError("a file number", code=ObservationCode.OBSERVATION_FILE_UNKNOWN)
        try:
            clean = clean_observation(text)
        except DataProtectionError as err:
            raise ObservationError(
                "1-500 characters of plain text", code=ObservationCode.OBSERVATION_TEXT_INVALID
            ) from err
        try:
            return self._store.add_observation(
                file_number, clean, operator.username, self._clock.now()
            )
        except NotFoundError as err:
            raise ObservationError(
                "no such file", code=ObservationCode.OBSERVATION_FILE_UNKNOWN
            ) from err
