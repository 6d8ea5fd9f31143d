"""The Registro de Interdicciones de Acceso al Juego (RIAJ) as seen by the domain (art. 20.2, R1).

Only the answer types and the port live here; adapters (local replica in the
encrypted store, online SOAP client) implement :class:`InterdictionRegistry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum, unique
from typing import Protocol

from admission.codes import Code
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


@unique
class RegistryErrorCode(Code):
    """Why a check is UNVERIFIABLE (``RegistryAnswer.error``), or why the online register or
    its sync failed. The desk never turns one of these into an ADMIT (art. 20.2, 21.1)."""

    # the policy (admission/registry/policy.py)
    REGISTRY_NOT_CONFIGURED = "REGISTRY_NOT_CONFIGURED"  # neither online nor replica
    REGISTRY_UNAVAILABLE = "REGISTRY_UNAVAILABLE"  # the online register gave no usable answer
    REGISTRY_UNVERIFIABLE = "REGISTRY_UNVERIFIABLE"  # an adapter said UNVERIFIABLE, no code
    REGISTRY_ADAPTER_ERROR = "REGISTRY_ADAPTER_ERROR"  # an adapter failed without a code
    REPLICA_UNDATED = "REPLICA_UNDATED"  # the replica cannot say how old it is
    REPLICA_STALE = "REPLICA_STALE"  # older than the configured maximum age
    # the replica (db/registry_replica.py)
    REPLICA_EMPTY = "REPLICA_EMPTY"  # no snapshot imported yet
    REPLICA_READ_FAILED = "REPLICA_READ_FAILED"
    # the online service (hardware/registry/)
    REGISTRY_TIMEOUT = "REGISTRY_TIMEOUT"
    REGISTRY_CONNECTION = "REGISTRY_CONNECTION"  # refused, reset or name not resolved
    REGISTRY_TLS = "REGISTRY_TLS"  # the secure connection failed (certificates)
    REGISTRY_HTTP_5XX = "REGISTRY_HTTP_5XX"  # the service's own failure (retried)
    REGISTRY_HTTP_ERROR = "REGISTRY_HTTP_ERROR"  # any other HTTP status but 200
    REGISTRY_FAULT = "REGISTRY_FAULT"  # a SOAP fault (retried)
    REGISTRY_MALFORMED = "REGISTRY_MALFORMED"  # an answer we cannot trust
    REGISTRY_UNEXPECTED_PERSON = "REGISTRY_UNEXPECTED_PERSON"  # about someone not asked
    REGISTRY_NO_ANSWER = "REGISTRY_NO_ANSWER"  # the answer left this person out
    REGISTRY_CANNOT_VERIFY = "REGISTRY_CANNOT_VERIFY"  # COD006: about the person, not an outage
    # the background change-feed sync (hardware/registry/sync.py)
    SYNC_FAILED = "SYNC_FAILED"  # failed without a more precise code


@unique
class RegistryConfigCode(Code):
    """Why a register adapter cannot be built from the settings and the OS keyring."""

    REGISTRY_ENDPOINT = "REGISTRY_ENDPOINT"  # not an https URL
    REGISTRY_SETTINGS = "REGISTRY_SETTINGS"  # batch size or attempts out of range
    REGISTRY_CLIENT_CERT = "REGISTRY_CLIENT_CERT"  # the client certificate or key is unusable
    KEYRING_UNAVAILABLE = "KEYRING_UNAVAILABLE"  # the online register's secrets live there
    REGISTRY_PUBLIC_KEY = "REGISTRY_PUBLIC_KEY"  # registry.public_key is not an Ed25519 key


CASINO_SCOPE = "CASINOS"  # exclusions are per game type; the casino scope binds us


@dataclass(frozen=True, slots=True)
class RegistryAnswer:
    status: RegistryStatus
    source: RegistrySource
    scope: str = CASINO_SCOPE
    version: str = ""  # snapshot version or online transaction id
    as_of: datetime | None = None  # when the data used was current
    age_seconds: int | None = None  # age of the replica at check time
    error: str = ""  # when UNVERIFIABLE: a RegistryErrorCode, or the failing adapter's code
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
