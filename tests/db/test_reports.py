"""The report reads (db/reports.py, written once for every dialect) and ReportService over both
stores: the daily visitor book, the figures, the access report (arts. 14.1.b, 20.4;
GDPR art. 15) and the audit entry of every report and export."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from admission.accounts import Operator, Role
from admission.clock import FixedClock
from admission.errors import StoreError
from admission.inspection import InspectionCode, InspectionError, SearchCriteria, Timeline
from admission.ports import madrid_day_start
from admission.records import StaffMember, StaffRole, Visitor
from admission.reports import (
    AccessReport,
    CasinoInfo,
    DayBook,
    ExportFormat,
    ReportCode,
    ReportError,
    ReportMeta,
    ReportService,
    csv_bytes,
    csv_text,
    day_book_rows,
    figures_from_counts,
    visitor_rows,
)
from tests.db.factories import T0, card_for, dni, entry

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
MADRID_DAY = date(2026, 1, 10)  # T0 is 22:30 in Madrid (UTC+1 in winter)
INSPECTOR = Operator("ines", "Inés Ruiz", frozenset({Role.INSPECTOR}))
DIRECTOR = Operator("dora", "Dora Gil", frozenset({Role.DIRECTOR}))
CLERK = Operator("ana", "Ana", frozenset({Role.CLERK}))
ADMIN = Operator("root", "Root", frozenset({Role.ADMIN}))
PURPOSE = "Expediente 12/2026 de la inspección"


def _history(store: Any) -> None:
    """Visitor 1 admitted at T0 and again the next day; visitor 2 admitted an hour
    later on a card voided since; visitor 3 refused (MINOR) at 00:30 Madrid; a VIP."""
    store.record_admission(entry(1))
    store.record_admission(entry(1, T0 + DAY))
    second = store.record_admission(entry(2, T0 + HOUR, surname="García", given_names="Ana"))
    store.void_card(second.card_number, "mal impresa", "dora", T0 + HOUR)
    early = datetime(2026, 1, 9, 23, 30, tzinfo=UTC)  # 00:30 on the 10th in Madrid
    store.record_admission(
        entry(3, early, card=False, verdict="DENY", reasons=("MINOR", "BIRTH_DATE_UNKNOWN"))
    )
    vip = card_for(T0 + 2 * HOUR, card_type="VIP", price_cents=2000)
    store.record_admission(entry(4, T0 + 20 * timedelta(minutes=1), card=vip, surname="Ñúñez"))


def test_the_day_book_holds_the_visits_of_a_madrid_day_by_time(any_store: Any) -> None:
    _history(any_store)
    lines = any_store.day_book_lines(
        madrid_day_start(MADRID_DAY), madrid_day_start(MADRID_DAY + DAY)
    )
    assert [line.file_number for line in lines] == [3, 1, 4, 2]
    refused, first, vip, voided = lines
    assert refused.verdict == "DENY" and refused.reasons == ("MINOR", "BIRTH_DATE_UNKNOWN")
    assert refused.card_number is None and refused.price_cents == 0
    assert (first.surname, first.given_names, first.identity) == (
        "Peña Núñez",
        "José María",
        dni(1).text,
    )
    assert (first.card_number, first.card_type, first.price_cents) == (1, "STANDARD", 500)
    assert (first.desk_id, first.operator, first.document_type) == ("desk-1", "op-7", "DNI")
    assert (vip.card_type, vip.price_cents, vip.card_voided) == ("VIP", 2000, False)
    assert voided.card_voided and voided.card_number == 3
    assert first.at == T0


def test_the_figures_count_madrid_hours_cards_revenue_and_refusals(any_store: Any) -> None:
    _history(any_store)
    counts = any_store.figure_counts(
        madrid_day_start(MADRID_DAY), madrid_day_start(MADRID_DAY + DAY)
    )
    figures = figures_from_counts(MADRID_DAY, MADRID_DAY, counts)
    assert figures.per_hour[22] == 2 and figures.per_hour[23] == 1  # Madrid hours
    assert figures.refused_per_hour[0] == 1 and sum(figures.per_hour) == 3
    assert (figures.admissions, figures.refused, figures.visitors) == (3, 1, 4)
    assert figures.per_day == ((MADRID_DAY, 3),)
    assert figures.card_types == (("STANDARD", 1), ("VIP", 1))  # the voided one apart
    assert figures.revenue_cents == 2500 and figures.voided == 1
    assert dict(figures.revenue_by_type) == {"STANDARD": 500, "VIP": 2000}
    assert dict(figures.refusals) == {"MINOR": 1, "BIRTH_DATE_UNKNOWN": 1}
    two = any_store.figure_counts(
        madrid_day_start(MADRID_DAY), madrid_day_start(MADRID_DAY + 2 * DAY)
    )
    both = figures_from_counts(MADRID_DAY, MADRID_DAY + DAY, two)
    assert both.per_day == ((MADRID_DAY, 3), (MADRID_DAY + DAY, 1))
    assert both.visitors == 4 and both.revenue_cents == 3000
    empty = any_store.figure_counts(
        madrid_day_start(date(2025, 1, 1)), madrid_day_start(date(2025, 1, 2))
    )
    assert figures_from_counts(date(2025, 1, 1), date(2025, 1, 1), empty).admissions == 0


def test_reentries_and_the_not_admitted_are_counted_apart_from_refusals(any_store: Any) -> None:
    """art. 22: a re-entry on the card held is neither a refusal nor a visit; a register
    that cannot be checked (art. 20.1-2) or an admission dismissed is not a refusal."""
    _history(any_store)
    # visitor 1 presents the document again an hour later: the store keeps one card
    again = any_store.record_admission(entry(1, T0 + HOUR))
    assert again.card_number is None and again.existing_card == 1
    unchecked = replace(
        entry(5, T0 + HOUR, card=False),
        verdict="NOT_ADMITTED",
        reasons=("REGISTRY_UNVERIFIABLE",),
    )
    any_store.record_admission(unchecked)
    dismissed = replace(
        entry(6, T0 + HOUR, card=False), verdict="NOT_ADMITTED", reasons=("DISMISSED_BY_CLERK",)
    )
    any_store.record_admission(dismissed)
    counts = any_store.figure_counts(
        madrid_day_start(MADRID_DAY), madrid_day_start(MADRID_DAY + DAY)
    )
    figures = figures_from_counts(MADRID_DAY, MADRID_DAY, counts)
    assert (figures.admissions, figures.refused) == (3, 1)  # as before the three
    assert dict(figures.refusals) == {"MINOR": 1, "BIRTH_DATE_UNKNOWN": 1}
    assert (figures.reentries, figures.not_admitted) == (1, 2)
    assert dict(figures.not_admitted_reasons) == {
        "REGISTRY_UNVERIFIABLE": 1,
        "DISMISSED_BY_CLERK": 1,
    }
    assert figures.visitors == 6  # visitor 1 once; the two not admitted presented
    lines = any_store.day_book_lines(
        madrid_day_start(MADRID_DAY), madrid_day_start(MADRID_DAY + DAY)
    )
    kinds = [(line.file_number, line.verdict) for line in lines if line.at == T0 + HOUR]
    assert (1, "ALREADY_ADMITTED") in kinds and (5, "NOT_ADMITTED") in kinds


def test_the_access_report_holds_everything_about_the_person(any_store: Any) -> None:
    _history(any_store)
    any_store.add_observation(1, "Pidió hoja de reclamaciones", "dora", T0 + HOUR)
    any_store.add_ban(dni(1), "Altercado en sala", "dora", T0 + 2 * HOUR)
    any_store.add_staff(StaffMember(dni(1), "José María Peña", StaffRole.STAFF), "dora", T0)
    any_store.append("ines", "INSPECT_TIMELINE", "file:1", T0, {"purpose": "x"})
    report = any_store.access_report_data(1)
    assert report.visitor.identity == dni(1)
    assert [e.visit.at for e in report.timeline] == [T0, T0 + DAY]
    assert [e.card.number for e in report.timeline if e.card] == [1, 2]
    assert [o.text for o in report.observations] == ["Pidió hoja de reclamaciones"]
    assert [b.reason for b in report.bans] == ["Altercado en sala"]
    assert report.staff is not None and report.staff.role is StaffRole.STAFF
    # two visits, the observation and the inspector's query name file:1
    assert report.consultations == 4
    assert any_store.access_report_data(99) is None


def test_the_inspectors_search_answers_alike(any_store: Any) -> None:
    _history(any_store)
    found = any_store.inspect_visitors(SearchCriteria(id_number=dni(2).number), 10)
    assert [v.file_number for v in found] == [2]
    found = any_store.inspect_visitors(SearchCriteria(name="nunez"), 10)
    assert [v.file_number for v in found] == [4, 1, 3]  # by folded name, file


# -- the service ------------------------------------------------------------------------


class PlainRenderer:
    """Renders the canonical CSV for every report (the PDF renderer is tested apart)."""

    def visitors(self, meta: ReportMeta, visitors: Sequence[Visitor], fmt: ExportFormat) -> bytes:
        return csv_bytes(visitor_rows(visitors))

    def timeline(self, meta: ReportMeta, timeline: Timeline, fmt: ExportFormat) -> bytes:
        return b"timeline " + meta.title.encode()

    def day_book(self, meta: ReportMeta, book: DayBook) -> bytes:
        return csv_bytes(day_book_rows(book))

    def access_report(self, meta: ReportMeta, report: AccessReport) -> bytes:
        return b"access " + meta.title.encode()


class MemoryTarget:
    def __init__(self, name: str = "export.pdf") -> None:
        self.name = name
        self.data: bytes | None = None
        self.events: list[str] = []

    def write(self, data: bytes) -> None:
        self.events.append("write")
        self.data = data

    def discard(self) -> None:
        self.events.append("discard")
        self.data = None


CASINO = CasinoInfo("Casino Gran Vía", "CAS-01", "Gran Vía 1, Madrid")


def service(store: Any) -> ReportService:
    return ReportService(store, FixedClock(T0 + 3 * DAY), PlainRenderer(), CASINO)


def _new_entries(store: Any, before: int) -> list[Any]:
    return list(store.audit_entries(before, 10_000))


def _seq(store: Any) -> int:
    return int(store.head().seq)


def test_the_day_book_export_is_written_then_audited_without_names(any_store: Any) -> None:
    _history(any_store)
    before = _seq(any_store)
    target = MemoryTarget("libro-2026-01-10.pdf")
    done = service(any_store).export_day_book(INSPECTOR, MADRID_DAY, target, purpose=PURPOSE)
    assert target.events == ["write"] and done.rows == 4 and done.size == len(target.data or b"")
    [audit] = _new_entries(any_store, before)
    assert (audit.actor, audit.action, audit.subject) == ("ines", "REPORT_DAY", "day:2026-01-10")
    assert audit.details["role"] == "INSPECTOR" and audit.details["format"] == "pdf"
    assert audit.details["purpose"] == PURPOSE  # the day's names: a stated purpose (art. 20.4)
    assert audit.details["rows"] == "4" and audit.details["digest"] == done.digest
    assert audit.details["file"] == "libro-2026-01-10.pdf"
    assert audit.details["head"].startswith(f"{before}:")
    assert "Peña" not in repr(audit) and dni(1).number not in repr(audit)


def test_the_digest_is_that_of_the_csv_without_its_bom(any_store: Any) -> None:
    _history(any_store)
    target = MemoryTarget("libro.csv")
    done = service(any_store).export_day_book(DIRECTOR, MADRID_DAY, target, purpose=PURPOSE)
    assert target.data is not None and target.data.startswith(b"\xef\xbb\xbf")
    assert hashlib.sha256(target.data[3:]).hexdigest() == done.digest


def test_a_search_export_records_its_criteria_as_keyed_hashes(any_store: Any) -> None:
    _history(any_store)
    before = _seq(any_store)
    target = MemoryTarget("busqueda.csv")
    done = service(any_store).export_search(
        INSPECTOR, PURPOSE, ExportFormat.CSV, target, name="peña", id_number=dni(1).number
    )
    assert done.rows == 1 and done.format is ExportFormat.CSV
    assert target.data is not None and "Peña Núñez".encode() in target.data
    [audit] = _new_entries(any_store, before)
    assert (audit.action, audit.subject) == ("INSPECT_EXPORT", "file:search")
    assert audit.details["purpose"] == PURPOSE and audit.details["name"].startswith("hmac:")
    assert audit.details["id"] == any_store.keyed_hash(dni(1).number)
    assert audit.details["format"] == "csv" and audit.details["rows"] == "1"
    text = repr(audit).upper()
    assert "PEÑA" not in text and dni(1).number not in text


def test_a_timeline_export_of_an_unknown_file_is_refused_and_recorded(any_store: Any) -> None:
    before = _seq(any_store)
    with pytest.raises(InspectionError) as refused:
        service(any_store).export_timeline(INSPECTOR, PURPOSE, 99, ExportFormat.PDF, MemoryTarget())
    assert refused.value.code is InspectionCode.INSPECT_FILE_UNKNOWN
    [audit] = _new_entries(any_store, before)
    assert (audit.action, audit.subject, audit.details["found"]) == (
        "INSPECT_EXPORT",
        "file:99",
        "no",
    )


def test_a_failed_audit_append_discards_the_written_export(any_store: Any) -> None:
    _history(any_store)
    target = MemoryTarget()

    def broken(*args: object, **kwargs: object) -> int:
        raise StoreError("disk full")

    reports = service(any_store)
    original = any_store.append
    any_store.append = broken
    try:
        with pytest.raises(StoreError):
            reports.export_timeline(INSPECTOR, PURPOSE, 1, ExportFormat.PDF, target)
    finally:
        any_store.append = original
    assert target.events == ["write", "discard"] and target.data is None


@pytest.mark.parametrize("who", [CLERK, ADMIN])
def test_a_clerk_or_an_administrator_gets_no_report(any_store: Any, who: Operator) -> None:
    _history(any_store)
    before = _seq(any_store)
    reports = service(any_store)
    target = MemoryTarget()
    for call in (
        lambda: reports.figures(who, MADRID_DAY, MADRID_DAY),
        lambda: reports.day_book(who, MADRID_DAY),
        lambda: reports.export_day_book(who, MADRID_DAY, target, purpose=PURPOSE),
        lambda: reports.access_report(who, PURPOSE, file_number=1),
    ):
        with pytest.raises(ReportError) as refused:
            call()
        assert refused.value.code is ReportCode.REPORT_ROLE_REQUIRED
    with pytest.raises(InspectionError) as refused_export:
        reports.export_search(who, PURPOSE, ExportFormat.PDF, target, name="pena")
    assert refused_export.value.code is InspectionCode.INSPECTOR_ROLE_REQUIRED
    assert target.events == [] and _seq(any_store) == before


def test_the_access_report_is_the_directors_alone(any_store: Any) -> None:
    _history(any_store)
    reports = service(any_store)
    with pytest.raises(ReportError) as refused:
        reports.access_report(INSPECTOR, PURPOSE, file_number=1)
    assert refused.value.code is ReportCode.REPORT_ROLE_REQUIRED
    before = _seq(any_store)
    report = reports.access_report(DIRECTOR, PURPOSE, id_number=dni(1).number.lower())
    assert report.visitor.file_number == 1
    [audit] = _new_entries(any_store, before)
    assert (audit.action, audit.subject, audit.details["role"]) == (
        "ACCESS_REPORT",
        "file:1",
        "DIRECTOR",
    )
    assert audit.details["id"].startswith("hmac:") and dni(1).number not in repr(audit)
    target = MemoryTarget("acceso.pdf")
    done = reports.export_access_report(DIRECTOR, PURPOSE, target, file_number=1)
    assert target.data is not None and done.rows > 8
    with pytest.raises(ReportError) as unknown:
        reports.access_report(DIRECTOR, PURPOSE, id_number="99999999R")
    assert unknown.value.code is ReportCode.ACCESS_SUBJECT_UNKNOWN
    with pytest.raises(ReportError) as neither:
        reports.access_report(DIRECTOR, PURPOSE)
    assert neither.value.code is ReportCode.ACCESS_SUBJECT_REQUIRED


def test_the_figures_are_audited_and_bounded(any_store: Any) -> None:
    _history(any_store)
    reports = service(any_store)
    before = _seq(any_store)
    figures = reports.figures(DIRECTOR, MADRID_DAY, MADRID_DAY + DAY)
    assert figures.admissions == 4
    [audit] = _new_entries(any_store, before)
    assert (audit.action, audit.details["from"], audit.details["to"]) == (
        "REPORT_FIGURES",
        "2026-01-10",
        "2026-01-11",
    )
    for start, end in ((MADRID_DAY, MADRID_DAY - DAY), (MADRID_DAY, MADRID_DAY + 400 * DAY)):
        with pytest.raises(ReportError) as refused:
            reports.figures(DIRECTOR, start, end)
        assert refused.value.code is ReportCode.REPORT_DATE_INVALID


def test_a_bad_format_is_refused_before_anything_is_written(any_store: Any) -> None:
    _history(any_store)
    target = MemoryTarget()
    with pytest.raises(ReportError) as refused:
        service(any_store).export_timeline(
            INSPECTOR,
            PURPOSE,
            1,
            "xlsx",  # type: ignore[arg-type]
            target,
        )
    assert refused.value.code is ReportCode.EXPORT_FORMAT_INVALID and target.events == []


def test_csv_cells_cannot_run_as_formulas() -> None:
    text = csv_text([("=1+1", "+34", "-x", "@SUM(A1)", "Peña")])
    assert text == "'=1+1,'+34,'-x,'@SUM(A1),Peña\r\n"
    assert csv_bytes([("a",)]) == b"\xef\xbb\xbfa\r\n"


def test_the_day_book_is_also_read_for_a_screen(any_store: Any) -> None:
    _history(any_store)
    before = _seq(any_store)
    book = service(any_store).day_book(DIRECTOR, MADRID_DAY)
    assert len(book.lines) == 4 and book.figures.admissions == 3
    assert book.audit_head.seq == before
    [audit] = _new_entries(any_store, before)
    assert audit.details["format"] == "screen" and replace(book, lines=()).lines == ()
