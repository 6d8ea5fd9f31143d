"""The inspectors' service (admission/inspection.py) with fakes: who may ask, the
purpose, the criteria, one audit entry per query with no clear name or number, and no
method that changes anything (art. 20.4)."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Sequence
from datetime import UTC, date, datetime

import pytest

from admission.accounts import Operator, Role
from admission.clock import FixedClock
from admission.identity import IdentityKey
from admission.inspection import (
    InspectionCode,
    InspectionError,
    InspectionService,
    SearchCriteria,
)
from admission.records import CardRecord, RegistryCheck, Visitor, VisitRecord

T0 = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)
INSPECTOR = Operator("ines", "Inés", frozenset({Role.INSPECTOR}))
DIRECTOR = Operator("dora", "Dora", frozenset({Role.DIRECTOR}))
CLERK = Operator("ana", "Ana", frozenset({Role.CLERK}))
ADMIN = Operator("jefa", "Jefa", frozenset({Role.ADMIN}))
PURPOSE = "Expediente 12/2026 de la inspección"
PERSON = Visitor(7, IdentityKey.of("DNI", "ESP", "12345678Z"), "PEÑA", "JOSÉ", None, "ESP", T0, T0)


def _visit(visit_id: int, card: int | None) -> VisitRecord:
    return VisitRecord(
        visit_id, 7, T0, "desk-1", "ana", "ADMIT", (), "ID", "BAA123456",
        RegistryCheck("CLEAR", "REPLICA", "v1", 5), card, "",
    )  # fmt: skip


class FakeReader:
    def __init__(self) -> None:
        self.asked: list[tuple[SearchCriteria, int]] = []

    def inspect_visitors(self, criteria: SearchCriteria, limit: int) -> Sequence[Visitor]:
        self.asked.append((criteria, limit))
        return [PERSON]

    def visitor(self, file_number: int) -> Visitor | None:
        return PERSON if file_number == 7 else None

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        return [_visit(1, None), _visit(2, 3)]

    def card(self, number: int) -> CardRecord | None:
        return None


class FakeAudit:
    def __init__(self) -> None:
        self.entries: list[tuple[str, str, str, dict[str, str]]] = []

    def append(
        self, actor: str, action: str, subject: str, at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:  # fmt: skip
        self.entries.append((actor, action, subject, dict(details or {})))
        return len(self.entries)

    def keyed_hash(self, text: str) -> str:
        return "hmac:" + hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.fixture
def parts() -> tuple[InspectionService, FakeReader, FakeAudit]:
    reader, audit = FakeReader(), FakeAudit()
    return InspectionService(reader, audit, FixedClock(T0)), reader, audit


def test_the_service_has_no_method_that_changes_anything() -> None:
    public = {
        name
        for name, _ in inspect.getmembers(InspectionService, callable)
        if not name.startswith("_")
    }
    assert public == {"search", "timeline"}


@pytest.mark.parametrize("who", [CLERK, ADMIN, Operator("x", "X", frozenset())])
def test_a_clerk_or_an_administrator_is_refused_and_nothing_is_read(
    parts: tuple[InspectionService, FakeReader, FakeAudit], who: Operator
) -> None:
    service, reader, audit = parts
    with pytest.raises(InspectionError) as refused:
        service.search(who, PURPOSE, name="pena")
    assert refused.value.code is InspectionCode.INSPECTOR_ROLE_REQUIRED
    with pytest.raises(InspectionError):
        service.timeline(who, PURPOSE, 7)
    assert reader.asked == [] and audit.entries == []


def test_an_inspector_search_is_audited_with_the_purpose_and_hashed_criteria(
    parts: tuple[InspectionService, FakeReader, FakeAudit],
) -> None:
    service, reader, audit = parts
    found = service.search(
        INSPECTOR, PURPOSE, name="  Peña ", id_number="12345678-z", card=3,
        date_from=date(2026, 12, 1), date_to=date(2026, 12, 3),
    )  # fmt: skip
    assert found == [PERSON]
    criteria, limit = reader.asked[0]
    assert criteria.name == "Peña" and criteria.id_number == "12345678Z" and limit == 200
    assert criteria.visits_from == datetime(2026, 11, 30, 23, 0, tzinfo=UTC)  # Madrid days
    assert criteria.visits_until == datetime(2026, 12, 3, 23, 0, tzinfo=UTC)
    [(actor, action, _, details)] = audit.entries
    assert (actor, action) == ("ines", "INSPECT_SEARCH")
    assert details["purpose"] == PURPOSE and details["role"] == "INSPECTOR"
    assert details["card"] == "3" and details["from"] == "2026-12-01"
    assert details["results"] == "1"
    text = repr(audit.entries)
    assert "12345678" not in text and "Peña" not in text and "peña" not in text
    assert details["id"].startswith("hmac:") and details["name"].startswith("hmac:")


def test_the_director_may_ask_and_is_recorded_as_director(
    parts: tuple[InspectionService, FakeReader, FakeAudit],
) -> None:
    service, _, audit = parts
    assert service.search(DIRECTOR, PURPOSE, file_number=7) == [PERSON]
    assert audit.entries[0][3]["role"] == "DIRECTOR"


@pytest.mark.parametrize(
    ("purpose", "criteria", "code"),
    [
        ("", {"name": "pena"}, InspectionCode.INSPECT_PURPOSE_INVALID),
        ("ab", {"name": "pena"}, InspectionCode.INSPECT_PURPOSE_INVALID),
        ("x" * 201, {"name": "pena"}, InspectionCode.INSPECT_PURPOSE_INVALID),
        ("bad\x00purpose", {"name": "pena"}, InspectionCode.INSPECT_PURPOSE_INVALID),
        (PURPOSE, {}, InspectionCode.INSPECT_NO_CRITERIA),
        (PURPOSE, {"name": "   "}, InspectionCode.INSPECT_NO_CRITERIA),
        (PURPOSE, {"name": "x" * 201}, InspectionCode.QUERY_TOO_LONG),
        (PURPOSE, {"name": "x" * 10_000}, InspectionCode.QUERY_TOO_LONG),
        (PURPOSE, {"observation": "y" * 10_000}, InspectionCode.QUERY_TOO_LONG),
        (PURPOSE, {"id_number": "z" * 10_000}, InspectionCode.QUERY_TOO_LONG),
        (PURPOSE, {"id_number": "'; DROP TABLE visits; --"}, InspectionCode.INSPECT_QUERY_INVALID),
        (PURPOSE, {"id_number": "1234%"}, InspectionCode.INSPECT_QUERY_INVALID),
        (PURPOSE, {"name": "a\x1b[2J"}, InspectionCode.INSPECT_QUERY_INVALID),
        (PURPOSE, {"card": 0}, InspectionCode.INSPECT_QUERY_INVALID),
        (PURPOSE, {"name": "pena", "limit": 0}, InspectionCode.INSPECT_QUERY_INVALID),
        (
            PURPOSE,
            {"date_from": date(2026, 12, 3), "date_to": date(2026, 12, 1)},
            InspectionCode.INSPECT_DATE_RANGE,
        ),
    ],
)
def test_bad_input_is_refused_with_a_code_before_any_read(
    parts: tuple[InspectionService, FakeReader, FakeAudit],
    purpose: str,
    criteria: dict[str, object],
    code: InspectionCode,
) -> None:
    service, reader, audit = parts
    with pytest.raises(InspectionError) as refused:
        service.search(INSPECTOR, purpose, **criteria)  # type: ignore[arg-type]
    assert refused.value.code is code
    assert reader.asked == [] and audit.entries == []


def test_quotes_and_wildcards_in_a_name_reach_the_reader_as_text(
    parts: tuple[InspectionService, FakeReader, FakeAudit],
) -> None:
    service, reader, _ = parts
    service.search(INSPECTOR, PURPOSE, name="'; DROP TABLE visits; --")
    service.search(INSPECTOR, PURPOSE, observation="50%_")
    assert reader.asked[0][0].name == "'; DROP TABLE visits; --"
    assert reader.asked[1][0].observation == "50%_"


def test_a_timeline_lists_the_visits_with_their_cards_and_is_audited(
    parts: tuple[InspectionService, FakeReader, FakeAudit],
) -> None:
    service, _, audit = parts
    timeline = service.timeline(INSPECTOR, PURPOSE, 7)
    assert timeline.visitor == PERSON
    assert [e.visit.visit_id for e in timeline.entries] == [1, 2]
    assert audit.entries == [
        ("ines", "INSPECT_TIMELINE", "file:7",
         {"purpose": PURPOSE, "role": "INSPECTOR", "found": "yes"}),
    ]  # fmt: skip


def test_an_unknown_file_is_refused_and_the_query_still_recorded(
    parts: tuple[InspectionService, FakeReader, FakeAudit],
) -> None:
    service, _, audit = parts
    with pytest.raises(InspectionError) as refused:
        service.timeline(INSPECTOR, PURPOSE, 8)
    assert refused.value.code is InspectionCode.INSPECT_FILE_UNKNOWN
    assert audit.entries[0][3]["found"] == "no"
