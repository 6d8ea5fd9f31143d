"""Factories that build valid models for tests (STYLE.md rule 20)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from admission.cards.catalogue import DEFAULT_CARD_TYPES, CardCatalogue
from admission.clock import FixedClock
from admission.desk import AdmissionDesk, DeskConfig
from admission.documents import IdentityDocument, document_from_mrz
from admission.generators.mrz_build import build_td1, build_td3
from admission.identity import IdentityKey
from admission.mrz.parse import parse_mrz
from admission.registry.port import PersonDetails, RegistryAnswer, RegistrySource, RegistryStatus
from admission.spanish_ids import dni_check_letter
from admission.verdict import AdmissionPolicy

SATURDAY_NIGHT = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)


def dni(number: int) -> str:
    return f"{number:08d}{dni_check_letter(number)}"


def dni_document(
    number: int = 12345678,
    *,
    surname: str = "GARCÍA LÓPEZ",
    given_names: str = "ANA",
    birth: date = date(1980, 5, 17),
    expiry: date = date(2030, 1, 1),
    today: date = date(2026, 11, 28),
    support: str = "BAA123456",
) -> IdentityDocument:
    lines = build_td1(
        document_code="ID",
        issuer="ESP",
        document_number=support,
        optional_data_1=dni(number),
        birth_date=birth,
        expiry_date=expiry,
        nationality="ESP",
        sex="F",
        surname=surname,
        given_names=given_names,
    )
    result = parse_mrz(lines, today=today)
    assert result.valid, result.errors
    return document_from_mrz(result)


def passport_document(
    number: str = "L898902C3",
    *,
    country: str = "GBR",
    surname: str = "SMITH",
    given_names: str = "JOHN",
    birth: date = date(1975, 1, 2),
    expiry: date = date(2031, 1, 1),
    today: date = date(2026, 11, 28),
) -> IdentityDocument:
    lines = build_td3(
        issuer=country,
        nationality=country,
        document_number=number,
        surname=surname,
        given_names=given_names,
        birth_date=birth,
        expiry_date=expiry,
        sex="M",
        personal_number="",
    )
    result = parse_mrz(lines, today=today)
    assert result.valid, result.errors
    return document_from_mrz(result)


@dataclass
class ScriptedRegistry:
    """A registry answering NOT_LISTED except for the identities told otherwise."""

    listed: set[str] = field(default_factory=set)
    down: bool = False
    asked: list[IdentityKey] = field(default_factory=list)
    people: list[PersonDetails | None] = field(default_factory=list)

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        self.asked.append(identity)
        self.people.append(person)
        if self.down:
            return RegistryAnswer(
                RegistryStatus.UNVERIFIABLE, RegistrySource.NONE, error="REGISTRY_TIMEOUT"
            )
        status = (
            RegistryStatus.LISTED if identity.number in self.listed else (RegistryStatus.NOT_LISTED)
        )
        return RegistryAnswer(status, RegistrySource.REPLICA, version="test-1", age_seconds=60)


def desk_config(**policy: object) -> DeskConfig:
    return DeskConfig(
        casino_id="CAS01",
        desk_id="DESK1",
        catalogue=CardCatalogue.from_config(DEFAULT_CARD_TYPES, "DAY"),
        policy=AdmissionPolicy(**policy),
    )  # type: ignore[arg-type]


def make_desk(
    store: object, registry: object | None = None, clock: FixedClock | None = None, **policy: object
) -> tuple[AdmissionDesk, FixedClock, ScriptedRegistry]:
    clock = clock or FixedClock(SATURDAY_NIGHT)
    reg = registry if registry is not None else ScriptedRegistry()
    desk = AdmissionDesk(
        store=store,
        registry=reg,
        clock=clock,  # type: ignore[arg-type]
        config=desk_config(**policy),
    )
    return desk, clock, reg  # type: ignore[return-value]


Factory = Callable[..., IdentityDocument]
