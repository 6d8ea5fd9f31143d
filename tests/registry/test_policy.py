"""Policy: online first, fresh replica next, otherwise UNVERIFIABLE (art. 20.2, 21.1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from admission.clock import FixedClock
from admission.identity import IdentityKey, IdKind
from admission.registry.policy import RegistryPolicy, RegistryPolicySettings
from admission.registry.port import RegistryAnswer, RegistrySource, RegistryStatus
from tests.registry.conftest import T0

WHO = IdentityKey.of(IdKind.DNI, "ESP", "12345678Z")
L, N, U = RegistryStatus.LISTED, RegistryStatus.NOT_LISTED, RegistryStatus.UNVERIFIABLE


@dataclass
class Scripted:
    answer: RegistryAnswer | Exception
    asked: list[IdentityKey] = field(default_factory=list)

    def check(self, identity: IdentityKey, person: object = None) -> RegistryAnswer:
        self.asked.append(identity)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def online(status: RegistryStatus, error: str = "") -> Scripted:
    return Scripted(
        RegistryAnswer(
            status, RegistrySource.ONLINE, version="T1", as_of=T0, age_seconds=0, error=error
        )
    )


def replica(status: RegistryStatus, age: timedelta = timedelta(hours=1)) -> Scripted:
    return Scripted(RegistryAnswer(status, RegistrySource.REPLICA, version="v1", as_of=T0 - age))


def policy(on: Scripted | None, rep: Scripted | None, max_age_h: int = 26) -> RegistryPolicy:
    settings = RegistryPolicySettings(max_replica_age=timedelta(hours=max_age_h))
    return RegistryPolicy(FixedClock(T0), online=on, replica=rep, settings=settings)


@pytest.mark.parametrize("status", [L, N])
def test_online_answer_wins_and_the_replica_is_not_asked(status: RegistryStatus) -> None:
    rep = replica(N)
    answer = policy(online(status), rep).check(WHO)
    assert answer.status is status and answer.source is RegistrySource.ONLINE
    assert rep.asked == []


@pytest.mark.parametrize("status", [L, N])
def test_outage_falls_back_to_a_fresh_replica(status: RegistryStatus) -> None:
    answer = policy(online(U, "REGISTRY_TIMEOUT"), replica(status)).check(WHO)
    assert answer.status is status and answer.source is RegistrySource.REPLICA
    assert answer.fallback_error == "REGISTRY_TIMEOUT" and answer.age_seconds == 3600


def test_stale_replica_not_listed_is_unverifiable_but_listed_stays_listed() -> None:
    stale = timedelta(hours=30)
    answer = policy(online(U, "REGISTRY_HTTP_5XX"), replica(N, stale)).check(WHO)
    assert answer.status is U and answer.error == "REPLICA_STALE"
    assert answer.age_seconds == 30 * 3600 and answer.version == "v1"
    assert policy(None, replica(L, stale)).check(WHO).status is L


def test_cannot_verify_is_not_papered_over_by_the_replica() -> None:
    answer = policy(online(U, "REGISTRY_CANNOT_VERIFY"), replica(N)).check(WHO)
    assert answer.status is U and answer.source is RegistrySource.ONLINE
    listed = policy(online(U, "REGISTRY_CANNOT_VERIFY"), replica(L)).check(WHO)
    assert listed.status is L


def test_nothing_configured_or_everything_broken_is_unverifiable() -> None:
    assert policy(None, None).check(WHO).error == "REGISTRY_NOT_CONFIGURED"
    answer = policy(online(U, "REGISTRY_TLS"), None).check(WHO)
    assert (answer.status, answer.source, answer.error) == (U, RegistrySource.NONE, "REGISTRY_TLS")
    boom = policy(Scripted(RuntimeError("bug")), Scripted(RuntimeError("bug"))).check(WHO)
    assert boom.status is U and boom.error == "REGISTRY_ADAPTER_ERROR"
    undated = Scripted(RegistryAnswer(N, RegistrySource.REPLICA))
    assert policy(None, undated).check(WHO).error == "REPLICA_UNDATED"


def test_the_answer_converts_to_the_visit_record() -> None:
    check = policy(online(U, "REGISTRY_TIMEOUT"), replica(N)).check(WHO).as_check()
    assert (check.status, check.source, check.version, check.age_seconds) == (
        "NOT_LISTED",
        "REPLICA",
        "v1",
        3600,
    )
