"""Which RIAJ answer the desk uses (art. 20.2 and 21.1, R1/R4).

Online first when configured; the local replica when it is fresher than a
configured age; otherwise UNVERIFIABLE with an error code, which the verdict
rules turn into SUPERVISOR or DENY. Never a silent NOT_LISTED.

Two deliberate choices:

* ``COD006`` from the online service ("cannot be verified" for that person) is
  an answer about the person, not an outage: it is *not* replaced by a replica
  NOT_LISTED, it stays UNVERIFIABLE (a replica LISTED still wins: fail closed).
* A replica older than the maximum age still reports LISTED (the person is in
  the last register we know; refusing is the safe side), but a stale
  NOT_LISTED becomes UNVERIFIABLE / ``REPLICA_STALE``.

Every answer carries the freshness of what it used (``as_of``, ``age_seconds``,
``version``) so the screen can show it and the visit can record it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from admission.identity import IdentityKey
from admission.ports import Clock
from admission.registry.port import (
    InterdictionRegistry,
    PersonDetails,
    RegistryAnswer,
    RegistryErrorCode,
    RegistrySource,
    RegistryStatus,
)

# Online answers that concern the person, not the connection: no fallback to the replica.
PERSON_LEVEL_ERRORS = frozenset({RegistryErrorCode.REGISTRY_CANNOT_VERIFY})

DEFAULT_MAX_REPLICA_AGE = timedelta(hours=26)  # a daily snapshot plus slack


@dataclass(frozen=True, slots=True)
class RegistryPolicySettings:
    max_replica_age: timedelta = DEFAULT_MAX_REPLICA_AGE


class RegistryPolicy:
    """An :class:`InterdictionRegistry` combining the online service and the replica."""

    def __init__(
        self,
        clock: Clock,
        *,
        online: InterdictionRegistry | None = None,
        replica: InterdictionRegistry | None = None,
        settings: RegistryPolicySettings | None = None,
    ) -> None:
        self._clock = clock
        self._online = online
        self._replica = replica
        self._settings = settings or RegistryPolicySettings()

    def reconfigure(self, settings: RegistryPolicySettings) -> None:
        """Saved settings apply to the next check (the desk's settings screen)."""
        self._settings = settings

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        fallback_error = ""
        if self._online is not None:
            online = self._guard(self._online, identity, RegistrySource.ONLINE, person)
            if online.status is not RegistryStatus.UNVERIFIABLE:
                return online
            if online.error in PERSON_LEVEL_ERRORS:
                return self._person_unverifiable(identity, online)
            fallback_error = online.error or RegistryErrorCode.REGISTRY_UNAVAILABLE
        if self._replica is None:
            return RegistryAnswer(
                RegistryStatus.UNVERIFIABLE,
                RegistrySource.NONE,
                error=fallback_error or RegistryErrorCode.REGISTRY_NOT_CONFIGURED,
                fallback_error=fallback_error,
            )
        answer = self._from_replica(identity)
        return replace(answer, fallback_error=fallback_error)

    def _person_unverifiable(self, identity: IdentityKey, online: RegistryAnswer) -> RegistryAnswer:
        if self._replica is not None:
            local = self._from_replica(identity)
            if local.status is RegistryStatus.LISTED:
                return replace(local, fallback_error=online.error)
        return online

    def _from_replica(self, identity: IdentityKey) -> RegistryAnswer:
        assert self._replica is not None
        answer = self._guard(self._replica, identity, RegistrySource.REPLICA)
        if answer.status is RegistryStatus.UNVERIFIABLE:
            return answer
        if answer.as_of is None:
            return replace(
                answer, status=RegistryStatus.UNVERIFIABLE, error=RegistryErrorCode.REPLICA_UNDATED
            )
        age = self._clock.now() - answer.as_of
        answer = replace(answer, age_seconds=max(0, int(age.total_seconds())))
        if age > self._settings.max_replica_age and answer.status is RegistryStatus.NOT_LISTED:
            return replace(
                answer, status=RegistryStatus.UNVERIFIABLE, error=RegistryErrorCode.REPLICA_STALE
            )
        return answer

    @staticmethod
    def _guard(
        registry: InterdictionRegistry,
        identity: IdentityKey,
        source: RegistrySource,
        person: PersonDetails | None = None,
    ) -> RegistryAnswer:
        """An adapter that raises must not turn into an ADMIT: it becomes UNVERIFIABLE."""
        try:
            answer = registry.check(identity, person)
        except Exception as exc:  # fail closed on any adapter bug
            code = getattr(exc, "code", "") or RegistryErrorCode.REGISTRY_ADAPTER_ERROR
            return RegistryAnswer(RegistryStatus.UNVERIFIABLE, source, error=str(code))
        if answer.status is RegistryStatus.UNVERIFIABLE and not answer.error:
            return replace(answer, error=RegistryErrorCode.REGISTRY_UNVERIFIABLE)
        return answer
