"""The Registro de Interdicciones de Acceso al Juego (RIAJ) as seen by the domain (art. 20.2, R1).

Only the answer types and the port live here; adapters (local replica in the
encrypted store, online SOAP client) implement :class:`InterdictionRegistry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Protocol

from admission.identity import IdentityKey
from admission.records import RegistryCheck


class RegistryStatus(StrEnum):
    LISTED = "LISTED"
    NOT_LISTED = "NOT_LISTED"
    UNVERIFIABLE = "UNVERIFIABLE"  # fail closed: never a silent ADMIT


class RegistrySource(StrEnum):
    ONLINE = "ONLINE"
    REPLICA = "REPLICA"
    NONE = "NONE"


CASINO_SCOPE = "CASINOS"  # exclusions are per game type; the casino scope binds us


@dataclass(frozen=True, slots=True)
class RegistryAnswer:
    status: RegistryStatus
    source: RegistrySource
    scope: str = CASINO_SCOPE
    version: str = ""  # snapshot version or online transaction id
    as_of: datetime | None = None  # when the data used was current
    age_seconds: int | None = None  # age of the replica at check time
    error: str = ""  # code when UNVERIFIABLE (REGISTRY_TIMEOUT, REPLICA_STALE, ...)
    fallback_error: str = ""  # why the online service was not used (answer came from the replica)

    def as_check(self) -> RegistryCheck:
        return RegistryCheck(self.status.value, self.source.value, self.version, self.age_seconds)


@dataclass(frozen=True, slots=True)
class PersonDetails:
    """What an online register may verify besides the number (the RGIAJ service takes
    nombre, apellido1, apellido2, fechaNacimiento and numSoporte): it helps a match where
    the number alone failed, e.g. typed foreign numbers. Adapters that cannot use it
    (the replica) ignore it."""

    given_names: str = ""
    surname: str = ""
    birth_date: date | None = None
    support_number: str = ""  # the DNI card's support number (número de soporte)

    def __repr__(self) -> str:  # never a name in a log or traceback
        return "PersonDetails(...)"


class InterdictionRegistry(Protocol):
    def check(
        self, identity: IdentityKey, person: PersonDetails | None = None
    ) -> RegistryAnswer: ...
