"""The scripted fake register records what it was asked and replays outcomes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from admission.clock import FixedClock
from admission.identity import IdentityKey, IdKind
from admission.registry.port import RegistryStatus
from hardware.registry.fake import FakeRegistry
from tests.registry.conftest import T0

WHO = IdentityKey.of(IdKind.DNI, "ESP", "12345678Z")


def test_script_then_listed_set(clock: FixedClock) -> None:
    fake = FakeRegistry(
        clock,
        listed=["12345678-z"],
        script=["UNVERIFIABLE:REGISTRY_TIMEOUT", "NOT_LISTED", RuntimeError("x")],
    )
    first = fake.check(WHO)
    assert (first.status, first.error) == (RegistryStatus.UNVERIFIABLE, "REGISTRY_TIMEOUT")
    assert fake.check(WHO).status is RegistryStatus.NOT_LISTED
    with pytest.raises(RuntimeError):
        fake.check(WHO)
    assert fake.check(WHO).status is RegistryStatus.LISTED
    assert fake.asked == [WHO] * 4


def test_feed(clock: FixedClock) -> None:
    fake = FakeRegistry(clock)
    fake.add("99999999R")
    clock.advance(timedelta(hours=1))
    fake.remove("99999999R")
    page = fake.changes_since(T0 + timedelta(minutes=30))
    assert [e.action.value for e in page.entries] == ["B"] and page.as_of == clock.now()
    assert len(fake.changes_since(None).entries) == 2
    with pytest.raises(ValueError):
        fake.add("??")
