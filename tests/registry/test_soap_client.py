"""The online client end to end against the reference register over TLS on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.errors import ConfigError
from admission.identity import IdentityKey, IdKind
from admission.registry.port import RegistrySource, RegistryStatus
from hardware.registry.soap_client import Credentials, RgiajSoapClient, SoapClientSettings
from hardware.registry.soap_messages import PersonQuery, RegistryClientError
from tests.registry.conftest import T0
from tests.registry.pki import Pki, make_pki
from tests.registry.reference_server import ReferenceRegister

L, N, U = RegistryStatus.LISTED, RegistryStatus.NOT_LISTED, RegistryStatus.UNVERIFIABLE


def dni(number: str) -> IdentityKey:
    return IdentityKey.of(IdKind.DNI, "ESP", number)


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="session")
def other_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("other-pki"), "impostor")


@pytest.fixture
def register(pki: Pki, clock: FixedClock) -> Iterator[ReferenceRegister]:
    with ReferenceRegister(
        clock.now, cert=str(pki.server_cert), key=str(pki.server_key), client_ca=str(pki.ca)
    ) as reg:
        reg.state.listed.add("12345678Z")
        reg.state.cannot_verify.add("X1234567L")
        reg.state.credentials = ("casino01", "s3cret")
        yield reg


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def settings_for(url: str, pki: Pki, **kw: object) -> SoapClientSettings:
    base = SoapClientSettings(
        endpoint=url,
        ca_file=str(pki.ca),
        client_cert=str(pki.client_cert),
        client_key=str(pki.client_key),
        username="casino01",
        timeout_s=1.0,
        deadline_s=3.0,
        max_attempts=3,
        backoff_s=0.01,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


CREDS = Credentials(password="s3cret", key_passphrase="key-passphrase")


def client(
    register: ReferenceRegister,
    pki: Pki,
    clock: FixedClock,
    sleep: Sleeps | None = None,
    **kw: object,
) -> RgiajSoapClient:
    return RgiajSoapClient(
        settings_for(register.url, pki, **kw), clock, CREDS, sleep=sleep or Sleeps()
    )


def test_codes_map_to_statuses(register: ReferenceRegister, pki: Pki, clock: FixedClock) -> None:
    c = client(register, pki, clock)
    listed = c.check(dni("12345678-z"))
    assert (listed.status, listed.source, listed.age_seconds) == (L, RegistrySource.ONLINE, 0)
    assert listed.version.startswith("TX-") and listed.as_of == T0
    assert c.check(dni("99999999R")).status is N
    cannot = c.check(IdentityKey.of("NIE", "ESP", "X1234567L"))
    assert cannot.status is U and cannot.error == "REGISTRY_CANNOT_VERIFY"


def test_batches_of_at_most_the_configured_size(
    register: ReferenceRegister, pki: Pki, clock: FixedClock
) -> None:
    c = client(register, pki, clock, batch_size=100)
    persons = [PersonQuery(f"{n:08d}X", nombre="Ana", apellido1="Pérez") for n in range(250)]
    persons.append(PersonQuery("12345678Z"))
    answers = c.verify(persons)
    assert register.state.batch_sizes == [100, 100, 51]
    assert len(answers) == 251 and answers["12345678Z"].status is L
    assert answers["00000007X"].status is N


def test_wrong_password_is_not_retried(
    register: ReferenceRegister, pki: Pki, clock: FixedClock
) -> None:
    sleeps = Sleeps()
    c = RgiajSoapClient(
        settings_for(register.url, pki), clock, replace(CREDS, password="wrong"), sleep=sleeps
    )
    answer = c.check(dni("12345678Z"))
    assert answer.error == "REGISTRY_HTTP_ERROR" and c.attempts == 1 and sleeps.calls == []


@pytest.mark.parametrize("fault", ["500", "fault", "drop"])
def test_transient_faults_are_retried_with_backoff(
    register: ReferenceRegister, pki: Pki, clock: FixedClock, fault: str
) -> None:
    sleeps = Sleeps()
    register.state.faults.extend([fault, fault])
    c = client(register, pki, clock, sleeps)
    assert c.check(dni("12345678Z")).status is L
    assert c.attempts == 3 and sleeps.calls == [0.01, 0.02]


def test_retries_are_bounded(register: ReferenceRegister, pki: Pki, clock: FixedClock) -> None:
    register.state.faults.extend(["500"] * 5)
    c = client(register, pki, clock)
    answer = c.check(dni("12345678Z"))
    assert (answer.status, answer.error, c.attempts) == (U, "REGISTRY_HTTP_5XX", 3)


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        ("malformed", "REGISTRY_MALFORMED"),
        ("doctype", "REGISTRY_MALFORMED"),
        ("extra_person", "REGISTRY_UNEXPECTED_PERSON"),
    ],
)
def test_bad_answers_are_rejected_and_not_retried(
    register: ReferenceRegister, pki: Pki, clock: FixedClock, fault: str, code: str
) -> None:
    register.state.faults.append(fault)
    c = client(register, pki, clock)
    answer = c.check(dni("12345678Z"))
    assert (answer.status, answer.error, c.attempts) == (U, code, 1)


def test_an_answer_for_someone_not_asked_rejects_the_whole_batch(
    register: ReferenceRegister, pki: Pki, clock: FixedClock
) -> None:
    register.state.faults.append("extra_person")
    answers = client(register, pki, clock).verify(
        [PersonQuery("12345678Z"), PersonQuery("99999999R")]
    )
    assert {a.error for a in answers.values()} == {"REGISTRY_UNEXPECTED_PERSON"}


def test_slow_answer_times_out_within_the_deadline(
    register: ReferenceRegister, pki: Pki, clock: FixedClock
) -> None:
    import time

    register.state.faults.extend(["slow:1.5", "slow:1.5", "slow:1.5"])
    c = client(register, pki, clock, timeout_s=0.3, deadline_s=0.8)
    start = time.monotonic()
    answer = c.check(dni("12345678Z"))
    assert answer.error == "REGISTRY_TIMEOUT" and time.monotonic() - start < 1.5
    assert c.attempts <= 3


def test_a_wrong_server_certificate_is_refused(pki: Pki, other_pki: Pki, clock: FixedClock) -> None:
    with ReferenceRegister(
        clock.now, cert=str(other_pki.server_cert), key=str(other_pki.server_key)
    ) as impostor:
        impostor.state.listed.add("12345678Z")
        c = RgiajSoapClient(settings_for(impostor.url, pki), clock, CREDS, sleep=Sleeps())
        answer = c.check(dni("12345678Z"))
    assert (answer.status, answer.error, c.attempts) == (U, "REGISTRY_TLS", 1)
    assert impostor.state.requests == []


def test_without_the_client_certificate_the_server_refuses(
    register: ReferenceRegister, pki: Pki, clock: FixedClock
) -> None:
    c = RgiajSoapClient(
        settings_for(register.url, pki, client_cert="", client_key=""), clock, CREDS, sleep=Sleeps()
    )
    answer = c.check(dni("12345678Z"))
    assert answer.status is U and answer.error in {"REGISTRY_TLS", "REGISTRY_CONNECTION"}
    assert register.state.requests == []


def test_change_feed_with_pages(register: ReferenceRegister, pki: Pki, clock: FixedClock) -> None:
    register.state.page_size = 2
    for i, n in enumerate(["11111111H", "22222222J", "33333333P"]):
        register.state.add(n, T0 + timedelta(minutes=i + 1))
    register.state.remove("11111111H", T0 + timedelta(minutes=9))
    clock.advance(timedelta(minutes=10))
    page = client(register, pki, clock).changes_since(T0)
    assert [(e.action.value, e.number) for e in page.entries][-1] == ("B", "11111111H")
    assert len(page.entries) >= 4 and page.as_of == T0 + timedelta(minutes=10)


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://a..b/riaj",  # an empty label
        "https://.casino.es/riaj",
        "https://" + "x" * 64 + ".es/riaj",  # a label over 63 bytes
        "https://" + ".".join(["x" * 60] * 5) + "/riaj",  # a name over 253 bytes
        "https://riaj.es:70000/riaj",  # a port out of range
    ],
)
def test_an_endpoint_the_resolver_cannot_take_is_a_code(endpoint: str, clock: FixedClock) -> None:
    # the resolver's refusal (UnicodeError) or the port's (ValueError) came at the first
    # check, as a traceback
    with pytest.raises(ConfigError) as err:
        RgiajSoapClient(SoapClientSettings(endpoint), clock)
    assert err.value.code == "REGISTRY_ENDPOINT"


def test_configuration_errors(pki: Pki, clock: FixedClock) -> None:
    with pytest.raises(ConfigError) as err:
        RgiajSoapClient(SoapClientSettings("http://example.org/x"), clock)
    assert err.value.code == "REGISTRY_ENDPOINT"
    with pytest.raises(ConfigError) as err:
        RgiajSoapClient(
            settings_for("https://127.0.0.1:1/x", pki), clock, Credentials(key_passphrase="wrong")
        )
    assert err.value.code == "REGISTRY_CLIENT_CERT"


def test_connection_refused_is_unverifiable(pki: Pki, clock: FixedClock, tmp_path: Path) -> None:
    c = RgiajSoapClient(
        settings_for("https://127.0.0.1:9/x", pki, max_attempts=2), clock, CREDS, sleep=Sleeps()
    )
    answer = c.check(dni("12345678Z"))
    assert (answer.status, answer.error, c.attempts) == (U, "REGISTRY_CONNECTION", 2)
    with pytest.raises(RegistryClientError):
        c.changes_since(None)


def test_the_desk_s_person_details_travel_with_the_number(
    register: ReferenceRegister, pki: Pki, clock: FixedClock
) -> None:
    from datetime import date

    from admission.registry.port import PersonDetails

    c = client(register, pki, clock)
    person = PersonDetails("ANA MARIA", "GARCIA LOPEZ", date(1980, 5, 17), "BAA000589")
    assert c.check(dni("99999999R"), person).status is N
    sent = register.state.persons[-1]
    assert sent["dni"] == "99999999R" and sent["nombre"] == "ANA MARIA"
    assert (sent["apellido1"], sent["apellido2"]) == ("GARCIA", "LOPEZ")
    assert sent["fechaNacimiento"].startswith("1980-05-17") and sent["numSoporte"] == "BAA000589"
    c.check(dni("99999999R"), PersonDetails("JOSE", "DE LA FUENTE GIL"))
    assert register.state.persons[-1]["apellido1"] == "DE LA FUENTE GIL"
    assert repr(person) == "PersonDetails(...)"
