"""The Registro de Interdicciones de Acceso al Juego (RIAJ) as seen by the domain (art. 20.2, R1).

Only the answer types and the port live here; adapters (local replica in the
encrypted store, online SOAP client) implement :class:`InterdictionRegistry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
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


class InterdictionRegistry(Protocol):
    def check(self, identity: IdentityKey) -> RegistryAnswer: ...
