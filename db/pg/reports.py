"""The reads behind the director's and the inspectors' reports (arts. 20.4, 14.1.b) on
the visitor file on the shared PostgreSQL server (arts. 154-155): the daily visitor
book, the figures and the access-request report (GDPR art. 15) - the same answers as
db/reports.py - and :class:`PgDeskReads`, the one object the report, data-protection
and inspection services take in place of the SQLCipher store.

The day book and the figures read the visits of a UTC range through ``visits_by_at``;
the figures are aggregates over clear columns (times, verdicts, reason codes, card
rows) by UTC hour, which :func:`admission.reports.figures_from_counts` turns into
Madrid hours. The day book opens each named visitor's sealed name and identity once
(db/pg/crypto.py, bound to table, column and row); it is personal data and the service
audits its reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from admission.counters import DeskCounters
from admission.inspection import TimelineEntry
from admission.records import AuditHead, CardRecord, CardStatus, Visitor, VisitRecord
from admission.reports import AccessReport, DayBookLine, FigureCounts
from db import codec
from db.pg.data_protection import PgDataProtection
from db.pg.desk_counters import pg_desk_counters
from db.pg.inspection import PgInspection
from db.pg.rows import utc
from db.pg.store import PgStore, _Tx

__all__ = ["PgDeskReads", "PgReports"]

_DAY_BOOK = (
    "SELECT v.at, v.file_number, p.identity, p.surname, p.given_names, v.document_type, "
    "v.verdict, v.reasons, c.number, c.card_type, c.price_cents, v.desk_id, v.operator, "
    "c.status FROM visits AS v JOIN visitors AS p ON p.file_number = v.file_number "
    "LEFT JOIN cards AS c ON c.visit_id = v.visit_id "
    "WHERE v.at >= %s AND v.at < %s ORDER BY v.at, v.visit_id"
)
_BY_HOUR = (
    "SELECT date_trunc('hour', at AT TIME ZONE 'UTC') AS h, "
    "count(*) FILTER (WHERE verdict = 'ADMIT'), count(*) FILTER (WHERE verdict = 'DENY') "
    "FROM visits WHERE at >= %s AND at < %s GROUP BY h ORDER BY h"
)
# as db/reports.py: re-entries (art. 22) are no new visitors; they and the presentations
# not admitted without a refusal are counted apart
_VISITORS = (
    "SELECT count(DISTINCT file_number) FILTER (WHERE verdict <> 'ALREADY_ADMITTED'), "
    "count(*) FILTER (WHERE verdict = 'ALREADY_ADMITTED'), "
    "count(*) FILTER (WHERE verdict = 'NOT_ADMITTED') "
    "FROM visits WHERE at >= %s AND at < %s"
)
_REASONS = (
    "SELECT v.verdict, j.code, count(*) FROM visits AS v "
    "CROSS JOIN LATERAL jsonb_array_elements_text(v.reasons::jsonb) AS j(code) "
    "WHERE v.at >= %s AND v.at < %s AND v.verdict IN ('DENY', 'NOT_ADMITTED') "
    "GROUP BY v.verdict, j.code ORDER BY v.verdict, j.code"
)
_CARD_TYPES = (
    "SELECT c.card_type, count(*) FILTER (WHERE c.status <> 'VOIDED'), "
    "coalesce(sum(c.price_cents) FILTER (WHERE c.status <> 'VOIDED'), 0), "
    "count(*) FILTER (WHERE c.status = 'VOIDED') FROM visits AS v "
    "JOIN cards AS c ON c.visit_id = v.visit_id WHERE v.at >= %s AND v.at < %s "
    "GROUP BY c.card_type ORDER BY c.card_type"
)


class PgReports:
    """The report reads over an open :class:`PgStore` (thread-safe as it)."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def day_book_lines(self, start: datetime, until: datetime) -> Sequence[DayBookLine]:
        """The visits with ``start <= at < until``, by time, each with its visitor and
        the card it gave (personal data: the caller audits the reading)."""
        rows = self._store.read(lambda tx: tx.all(_DAY_BOOK, (start, until)))
        opener = self._store.opener
        people: dict[int, tuple[str, str, str]] = {}
        lines = []
        for (
            at,
            fn,
            identity,
            surname,
            given,
            doc_type,
            verdict,
            reasons,
            card,
            card_type,
            price,
            desk,
            operator,
            status,
        ) in rows:
            number = int(fn)
            person = people.get(number)
            if person is None:
                person = (
                    opener.text(surname, "visitors", "surname", number),
                    opener.text(given, "visitors", "given_names", number),
                    opener.text(identity, "visitors", "identity", number),
                )
                people[number] = person
            lines.append(
                DayBookLine(
                    at=utc(at),
                    file_number=number,
                    surname=person[0],
                    given_names=person[1],
                    identity=person[2],
                    document_type=str(doc_type),
                    verdict=str(verdict),
                    reasons=codec.parse_codes(str(reasons)),
                    card_number=None if card is None else int(card),
                    card_type="" if card_type is None else str(card_type),
                    price_cents=0 if price is None else int(price),
                    desk_id=str(desk),
                    operator=str(operator),
                    card_voided=status == CardStatus.VOIDED.value,
                )
            )
        return lines

    def figure_counts(self, start: datetime, until: datetime) -> FigureCounts:
        """Admissions and refusals per UTC hour, cards per type (voided apart), refusal
        reasons and distinct visitors of the visits with ``start <= at < until``."""
        span = (start, until)

        def work(tx: _Tx) -> tuple[list[tuple[Any, ...]], ...]:
            return (
                tx.all(_BY_HOUR, span),
                tx.all(_REASONS, span),
                tx.all(_CARD_TYPES, span),
                tx.all(_VISITORS, span),
            )

        hours, reasons, types, visitors = self._store.read(work)
        return FigureCounts(
            by_hour=tuple(
                (hour.replace(tzinfo=UTC), int(admitted), int(denied))
                for hour, admitted, denied in hours
            ),
            card_types=tuple(
                (str(name), int(n), int(cents)) for name, n, cents, _ in types if int(n)
            ),
            voided=sum(int(voided) for *_, voided in types),
            reasons=tuple((str(code), int(n)) for verdict, code, n in reasons if verdict == "DENY"),
            visitors=int(visitors[0][0]),
            reentries=int(visitors[0][1]),
            not_admitted=int(visitors[0][2]),
            not_admitted_reasons=tuple(
                (str(code), int(n)) for verdict, code, n in reasons if verdict == "NOT_ADMITTED"
            ),
        )

    def access_report_data(self, file_number: int) -> AccessReport | None:
        """Everything held about one person (GDPR art. 15): the file, the visits with
        their cards, the observations, the bans and staff entry of the same identity,
        and how many audit entries name the file. None when there is no such file."""
        store = self._store
        visitor = store.visitor(file_number)
        if visitor is None:
            return None
        timeline = tuple(
            TimelineEntry(v, None if v.card_number is None else store.card(v.card_number))
            for v in store.visits(file_number)
        )
        found = store.read(
            lambda tx: tx.one(
                "SELECT count(*) FROM audit WHERE subject = %s", (f"file:{file_number}",)
            )
        )
        assert found is not None
        return AccessReport(
            visitor=visitor,
            timeline=timeline,
            observations=tuple(store.observations(file_number)),
            bans=tuple(store.bans(visitor.identity)),
            staff=store.staff_member(visitor.identity),
            consultations=int(found[0]),
        )


class PgDeskReads(PgReports, PgDataProtection, PgInspection):
    """Every read (and the two rectifications) the report, data-protection and
    inspection services ask of their store, over one open :class:`PgStore`:

    * ``ReportService(PgDeskReads(store), clock, renderer, casino)``
      (:class:`admission.reports.ReportStore`),
    * ``DataProtectionService(PgDeskReads(store), clock)``
      (:class:`admission.data_protection.DataProtectionStore`),
    * ``InspectionService(reads, reads, clock)`` with ``reads = PgDeskReads(store)``
      (:class:`admission.inspection.InspectionReader` and ``InspectionAudit``),
    * ``reads.desk_counters`` as the desk window's
      :class:`admission.counters.CounterReader`.

    The store's own reads and the audit trail are passed through; the store stays the
    caller's to close."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    @property
    def store(self) -> PgStore:
        return self._store

    def desk_counters(self, now: datetime) -> DeskCounters:
        return pg_desk_counters(self._store, now)

    # -- the store's own, passed through ----------------------------------------------

    def visitor(self, file_number: int) -> Visitor | None:
        return self._store.visitor(file_number)

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        return self._store.visits(file_number)

    def card(self, number: int) -> CardRecord | None:
        return self._store.card(number)

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        return self._store.append(actor, action, subject, at, details)

    def keyed_hash(self, text: str) -> str:
        return self._store.keyed_hash(text)

    def head(self) -> AuditHead:
        return self._store.head()
