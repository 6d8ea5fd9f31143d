"""Background sync and the whole chain: reference register -> client -> replica -> policy."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.identity import IdentityKey, IdKind
from admission.registry.policy import RegistryPolicy
from admission.registry.port import RegistrySource, RegistryStatus
from admission.registry.replica import SyncStatus
from admission.registry.snapshot import render_snapshot
from db.registry_replica import ReplicaRegistry
from hardware.registry.fake import FakeRegistry
from hardware.registry.soap_client import Credentials, RgiajSoapClient, SoapClientSettings
from hardware.registry.soap_messages import RegistryClientError
from hardware.registry.sync import RegistrySync
from tests.registry.conftest import T0
from tests.registry.pki import Pki, make_pki
from tests.registry.reference_server import ReferenceRegister

L, N, U = RegistryStatus.LISTED, RegistryStatus.NOT_LISTED, RegistryStatus.UNVERIFIABLE
ALICE = IdentityKey.of(IdKind.DNI, "ESP", "12345678Z")
BOB = IdentityKey.of(IdKind.DNI, "ESP", "99999999R")


def seed(replica: ReplicaRegistry, tmp_path: Path) -> None:
    path = tmp_path / "snap"
    path.write_bytes(render_snapshot(["12345678Z"], version="2026-11-29", as_of=T0, salt=b"s" * 16))
    replica.import_file(path)


def test_sync_once_reports_success_and_failure(
    replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path
) -> None:
    seed(replica, tmp_path)
    fake = FakeRegistry(clock)
    seen: list[SyncStatus] = []
    sync = RegistrySync(fake, replica, clock, on_status=seen.append)
    assert sync.status().age_seconds == 0 and sync.status().replica_version == "2026-11-29"
    clock.advance(timedelta(hours=3))
    fake.add("99999999R")
    status = sync.sync_once()
    assert status.last_error == "" and status.last_success == clock.now() and status.added == 1
    assert status.age_seconds == 0 and "@" in status.replica_version
    assert fake.feed_requests == [T0]
    clock.advance(timedelta(minutes=20))
    fake.script.append(RegistryClientError("down", code="REGISTRY_TIMEOUT"))
    failed = sync.sync_once()
    assert failed.last_error == "REGISTRY_TIMEOUT" and failed.age_seconds == 1200
    assert failed.last_success == T0 + timedelta(hours=3)
    assert [s.last_error for s in seen] == ["", "REGISTRY_TIMEOUT"]


def test_thread_starts_pulls_and_stops_promptly(
    replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path
) -> None:
    seed(replica, tmp_path)
    fake = FakeRegistry(clock)
    pulled = threading.Event()
    sync = RegistrySync(fake, replica, clock, interval_s=3600, on_status=lambda s: pulled.set())
    sync.start()
    assert pulled.wait(5) and sync.status().running
    pulled.clear()
    fake.add("99999999R")
    sync.trigger()
    assert pulled.wait(5)
    assert sync.stop(timeout=2) and not sync.status().running
    assert replica.check(BOB).status is L


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def register(pki: Pki, clock: FixedClock) -> Iterator[ReferenceRegister]:
    with ReferenceRegister(
        clock.now, cert=str(pki.server_cert), key=str(pki.server_key), client_ca=str(pki.ca)
    ) as reg:
        reg.state.listed.add("12345678Z")
        yield reg


def soap(register: ReferenceRegister, pki: Pki, clock: FixedClock) -> RgiajSoapClient:
    settings = SoapClientSettings(
        register.url,
        ca_file=str(pki.ca),
        client_cert=str(pki.client_cert),
        client_key=str(pki.client_key),
        timeout_s=0.5,
        deadline_s=1.0,
        backoff_s=0.01,
    )
    return RgiajSoapClient(
        settings, clock, Credentials(key_passphrase="key-passphrase"), sleep=lambda s: None
    )


def test_listed_person_added_mid_day_reaches_the_replica(
    register: ReferenceRegister,
    pki: Pki,
    replica: ReplicaRegistry,
    clock: FixedClock,
    tmp_path: Path,
) -> None:
    seed(replica, tmp_path)  # this morning's snapshot: Bob is not in it
    client = soap(register, pki, clock)
    sync = RegistrySync(client, replica, clock)
    clock.set(T0 + timedelta(hours=7))  # 13:00 UTC: Bob self-excludes
    register.state.add("99999999R")
    clock.advance(timedelta(minutes=15))
    assert replica.check(BOB).status is N
    status = sync.sync_once()
    assert status.last_error == "" and status.added == 1
    assert replica.check(BOB).status is L
    # later that evening the registry goes down: the desk falls back to the fresh replica
    register.state.faults.extend(["500"] * 10)
    clock.advance(timedelta(hours=2))
    policy = RegistryPolicy(clock, online=client, replica=replica)
    answer = policy.check(BOB)
    assert (answer.status, answer.source) == (L, RegistrySource.REPLICA)
    assert answer.fallback_error == "REGISTRY_HTTP_5XX" and answer.age_seconds == 7200
    failed = sync.sync_once()
    assert failed.last_error == "REGISTRY_HTTP_5XX" and failed.age_seconds == 7200
    register.state.faults.clear()
    online = policy.check(ALICE)
    assert (online.status, online.source) == (L, RegistrySource.ONLINE)


def test_dropped_connection_during_the_feed_changes_nothing(
    register: ReferenceRegister,
    pki: Pki,
    replica: ReplicaRegistry,
    clock: FixedClock,
    tmp_path: Path,
) -> None:
    seed(replica, tmp_path)
    register.state.add("99999999R", T0 + timedelta(hours=1))
    clock.advance(timedelta(hours=2))
    register.state.faults.extend(["drop"] * 3)
    sync = RegistrySync(soap(register, pki, clock), replica, clock)
    assert sync.sync_once().last_error == "REGISTRY_CONNECTION"
    assert replica.feed_since() == T0 and replica.check(BOB).status is N
    assert sync.sync_once().last_error == ""  # resumes from the same position
    assert replica.check(BOB).status is L
