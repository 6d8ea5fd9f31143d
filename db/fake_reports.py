"""The fake store's report reads (see db/reports.py): the same answers from the
in-memory records, for tests of the services and the screens."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from admission.inspection import SearchCriteria, TimelineEntry
from admission.records import Ban, CardRecord, CardStatus, Observation, StaffMember, Visitor
from admission.reports import AccessReport, DayBookLine, FigureCounts
from admission.verdict import counts_as_visit
from db import codec, names

if TYPE_CHECKING:
    from admission.identity import IdentityKey
    from admission.records import VisitRecord
    from db.fake_chain import FakeChain

__all__ = ["FakeReportsMixin"]


class FakeReportsMixin:
    """Mixed into :class:`db.fake.FakeStore`; declares the attributes it uses."""

    _visitors: dict[int, Visitor]
    _visits: dict[int, VisitRecord]
    _observations: dict[int, Observation]
    _cards: dict[int, CardRecord]
    chain: FakeChain

    if TYPE_CHECKING:  # FakeStore's own reads

        def _view(self, number: int) -> Visitor: ...
        def visitor(self, file_number: int) -> Visitor | None: ...
        def visits(self, file_number: int) -> Sequence[VisitRecord]: ...
        def card(self, number: int) -> CardRecord | None: ...
        def observations(self, file_number: int) -> Sequence[Observation]: ...
        def bans(self, identity: IdentityKey) -> Sequence[Ban]: ...
        def staff_member(self, identity: IdentityKey) -> StaffMember | None: ...

    def inspect_visitors(self, criteria: SearchCriteria, limit: int) -> Sequence[Visitor]:
        """The inspectors' search (db/inspection.py's rules) over the records."""
        if criteria == SearchCriteria():
            return []
        query = None if criteria.name is None else names.words(criteria.name)
        if query is not None and not query:
            return []
        found = []
        for number in sorted(self._visitors):
            person = self._view(number)
            visits = [v for v in self._visits.values() if v.file_number == number]
            if query is not None and not names.matches(
                query, names.words(person.surname, person.given_names)
            ):
                continue
            wanted = criteria.id_number
            if wanted is not None and not (
                person.identity.number == wanted or any(v.document_number == wanted for v in visits)
            ):
                continue
            if criteria.card is not None and not any(
                c.number == criteria.card and c.file_number == number for c in self._cards.values()
            ):
                continue
            if criteria.file_number is not None and criteria.file_number != number:
                continue
            start, until = criteria.visits_from, criteria.visits_until
            if (start is not None or until is not None) and not any(
                (start is None or v.at >= start) and (until is None or v.at < until) for v in visits
            ):
                continue
            text = criteria.observation
            if text is not None and not any(
                o.file_number == number and text.lower() in o.text.lower()
                for o in self._observations.values()
            ):
                continue
            found.append(person)
        found.sort(key=lambda v: (names.search_name(v.surname, v.given_names), v.file_number))
        return found[:limit]

    def _in_range(self, start: datetime, until: datetime) -> list[VisitRecord]:
        return sorted(
            (v for v in self._visits.values() if start <= v.at < until),
            key=lambda v: (v.at, v.visit_id),
        )

    def _card_of(self, visit_id: int) -> CardRecord | None:
        for card in self._cards.values():
            if card.visit_id == visit_id:
                return card
        return None

    def day_book_lines(self, start: datetime, until: datetime) -> Sequence[DayBookLine]:
        lines = []
        for visit in self._in_range(start, until):
            person = self._view(visit.file_number)
            card = self._card_of(visit.visit_id)
            lines.append(
                DayBookLine(
                    at=visit.at,
                    file_number=visit.file_number,
                    surname=person.surname,
                    given_names=person.given_names,
                    identity=person.identity.text,
                    document_type=visit.document_type,
                    verdict=visit.verdict,
                    reasons=visit.reasons,
                    card_number=None if card is None else card.number,
                    card_type="" if card is None else card.card_type,
                    price_cents=0 if card is None else card.price_cents,
                    desk_id=visit.desk_id,
                    operator=visit.operator,
                    card_voided=card is not None and card.status is CardStatus.VOIDED,
                )
            )
        return lines

    def figure_counts(self, start: datetime, until: datetime) -> FigureCounts:
        visits = self._in_range(start, until)
        hours: dict[str, list[int]] = {}
        reasons: Counter[str] = Counter()
        apart: Counter[str] = Counter()  # reasons of the presentations not admitted
        types: dict[str, list[int]] = {}
        voided = 0
        for visit in visits:
            counts = hours.setdefault(codec.ts(visit.at)[:13], [0, 0])
            counts[0] += visit.verdict == "ADMIT"
            counts[1] += visit.verdict == "DENY"
            if visit.verdict == "DENY":
                reasons.update(visit.reasons)
            elif visit.verdict == "NOT_ADMITTED":
                apart.update(visit.reasons)
            card = self._card_of(visit.visit_id)
            if card is None:
                continue
            if card.status is CardStatus.VOIDED:
                voided += 1
                continue
            kind = types.setdefault(card.card_type, [0, 0])
            kind[0] += 1
            kind[1] += card.price_cents
        return FigureCounts(
            by_hour=tuple(
                (codec.parse_ts(f"{hour}:00:00.000000Z"), n[0], n[1])
                for hour, n in sorted(hours.items())
            ),
            card_types=tuple((name, n, cents) for name, (n, cents) in types.items()),
            voided=voided,
            reasons=tuple(reasons.items()),
            visitors=len({v.file_number for v in visits if counts_as_visit(v.verdict)}),
            reentries=sum(1 for v in visits if not counts_as_visit(v.verdict)),
            not_admitted=sum(1 for v in visits if v.verdict == "NOT_ADMITTED"),
            not_admitted_reasons=tuple(apart.items()),
        )

    def access_report_data(self, file_number: int) -> AccessReport | None:
        visitor = self.visitor(file_number)
        if visitor is None:
            return None
        timeline = tuple(
            TimelineEntry(v, None if v.card_number is None else self.card(v.card_number))
            for v in self.visits(file_number)
        )
        subject = f"file:{file_number}"
        return AccessReport(
            visitor=visitor,
            timeline=timeline,
            observations=tuple(self.observations(file_number)),
            bans=tuple(self.bans(visitor.identity)),
            staff=self.staff_member(visitor.identity),
            consultations=sum(1 for row in self.chain.rows if row.subject == subject),
        )
