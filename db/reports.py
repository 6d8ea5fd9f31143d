"""The reads behind the director's and the inspectors' reports (arts. 20.4, 14.1.b):
the daily visitor book, the figures and the access-request report (GDPR art. 15).

Only SELECTs, every value bound as a parameter. The day book and the figures read the
visits of a UTC range through the ``visits_by_at`` index (the range of one Madrid day is
a few thousand rows of a file of millions); the figures are SQL aggregates by UTC hour,
which :func:`admission.reports.figures_from_counts` turns into Madrid hours (Madrid is a
whole number of hours from UTC). Cards are reached from their visit (``cards.visit_id``
is unique, hence indexed), never by scanning the card table.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from admission.inspection import TimelineEntry
from admission.records import CardStatus
from admission.reports import AccessReport, DayBookLine, FigureCounts
from db import codec
from db.data_protection import DataProtectionMixin

__all__ = ["ReportsMixin"]

_DAY_BOOK = (
    "SELECT v.at, v.file_number, p.surname, p.given_names, p.identity, v.document_type, "
    "v.verdict, v.reasons, c.number, c.card_type, c.price_cents, v.desk_id, v.operator, "
    "c.status FROM visits AS v "
    "JOIN visitors AS p ON p.file_number = v.file_number "
    "LEFT JOIN cards AS c ON c.visit_id = v.visit_id "
    "WHERE v.at >= ? AND v.at < ? ORDER BY v.at, v.visit_id"
)
_BY_HOUR = (
    "SELECT substr(at, 1, 13), sum(verdict = 'ADMIT'), sum(verdict = 'DENY') "
    "FROM visits WHERE at >= ? AND at < ? GROUP BY 1 ORDER BY 1"
)
# a re-entry on the card held (art. 22) is no new visitor; it and the presentations not
# admitted without a refusal (the RIAJ unavailable, dismissed) are counted apart
_VISITORS = (
    "SELECT count(DISTINCT CASE WHEN verdict <> 'ALREADY_ADMITTED' THEN file_number END), "
    "total(verdict = 'ALREADY_ADMITTED'), total(verdict = 'NOT_ADMITTED') "
    "FROM visits WHERE at >= ? AND at < ?"
)
_REASONS = (
    "SELECT v.verdict, j.value, count(*) FROM visits AS v, "
    "json_each(v.reasons) AS j WHERE v.at >= ? AND v.at < ? "
    "AND v.verdict IN ('DENY', 'NOT_ADMITTED') GROUP BY 1, 2"
)
_CARD_TYPES = (
    "SELECT c.card_type, sum(c.status <> 'VOIDED'), "
    "sum(CASE WHEN c.status <> 'VOIDED' THEN c.price_cents ELSE 0 END), "
    "sum(c.status = 'VOIDED') FROM visits AS v "
    "JOIN cards AS c ON c.visit_id = v.visit_id WHERE v.at >= ? AND v.at < ? "
    "GROUP BY c.card_type"
)


class ReportsMixin(DataProtectionMixin):
    """Report reads over the SQLCipher file."""

    def day_book_lines(self, start: datetime, until: datetime) -> Sequence[DayBookLine]:
        """The visits with ``start <= at < until`` (UTC), by time, each with its visitor
        and the card it gave (personal data: the caller audits the reading)."""
        with self._read() as conn:
            rows = conn.execute(_DAY_BOOK, (codec.ts(start), codec.ts(until))).fetchall()
        return [
            DayBookLine(
                at=codec.parse_ts(str(at)),
                file_number=int(fn),
                surname=str(surname),
                given_names=str(given),
                identity=str(identity),
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
            for (
                at,
                fn,
                surname,
                given,
                identity,
                doc_type,
                verdict,
                reasons,
                card,
                card_type,
                price,
                desk,
                operator,
                status,
            ) in rows
        ]

    def figure_counts(self, start: datetime, until: datetime) -> FigureCounts:
        """Admissions and refusals per UTC hour, cards per type (voided apart), refusal
        reasons and distinct visitors of the visits with ``start <= at < until``; the
        re-entries and the presentations not admitted (with their reasons) apart."""
        span = (codec.ts(start), codec.ts(until))
        with self._read() as conn:
            hours = conn.execute(_BY_HOUR, span).fetchall()
            reasons = conn.execute(_REASONS, span).fetchall()
            types = conn.execute(_CARD_TYPES, span).fetchall()
            visitors, reentries, not_admitted = conn.execute(_VISITORS, span).fetchone()
        return FigureCounts(
            by_hour=tuple(
                (codec.parse_ts(f"{hour}:00:00.000000Z"), int(admitted), int(denied))
                for hour, admitted, denied in hours
            ),
            card_types=tuple(
                (str(name), int(n), int(cents)) for name, n, cents, _ in types if int(n)
            ),
            voided=sum(int(voided) for *_, voided in types),
            reasons=tuple((str(code), int(n)) for verdict, code, n in reasons if verdict == "DENY"),
            visitors=int(visitors),
            reentries=int(reentries),
            not_admitted=int(not_admitted),
            not_admitted_reasons=tuple(
                (str(code), int(n)) for verdict, code, n in reasons if verdict == "NOT_ADMITTED"
            ),
        )

    def access_report_data(self, file_number: int) -> AccessReport | None:
        """Everything held about one person (GDPR art. 15): the file, the visits with
        their cards, the observations, the bans and staff entry of the same identity,
        and how many audit entries name the file. None when there is no such file."""
        visitor = self.visitor(file_number)
        if visitor is None:
            return None
        timeline = tuple(
            TimelineEntry(v, None if v.card_number is None else self.card(v.card_number))
            for v in self.visits(file_number)
        )
        with self._read() as conn:
            consultations = int(
                conn.execute(
                    "SELECT count(*) FROM audit WHERE subject = ?", (f"file:{file_number}",)
                ).fetchone()[0]
            )
        return AccessReport(
            visitor=visitor,
            timeline=timeline,
            observations=tuple(self.observations(file_number)),
            bans=tuple(self.bans(visitor.identity)),
            staff=self.staff_member(visitor.identity),
            consultations=consultations,
        )
