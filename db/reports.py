"""The reads behind the director's and the inspectors' reports (arts. 20.4, 14.1.b): the
day book, the figures and the access report (GDPR art. 15), and the desk's counters panel,
over both dialects (db/tx.py). Only SELECTs over UTC ranges of ``visits_by_at``; the
figures and counters count clear columns (on the server, the whole operating unit's, arts.
154-155); the day book is personal data, its reading audited by the caller."""

from __future__ import annotations

from datetime import datetime, timedelta

from admission.counters import DeskCounters
from admission.inspection import TimelineEntry
from admission.ports import madrid_date, madrid_day_start
from admission.records import CardStatus
from admission.reports import AccessReport, DayBookLine, FigureCounts
from db import cards, codec, people, visitors
from db.tx import Tx, when
from db.voucher_book import Store

_DAY_BOOK = (
    "SELECT v.at, v.file_number, p.surname, p.given_names, p.identity, v.document_type, "
    "v.verdict, v.reasons, c.number, c.card_type, c.price_cents, v.desk_id, v.operator, "
    "c.status FROM visits AS v "
    "JOIN visitors AS p ON p.file_number = v.file_number "
    "LEFT JOIN cards AS c ON c.visit_id = v.visit_id "
    "WHERE v.at >= ? AND v.at < ? ORDER BY v.at, v.visit_id"
)
# The UTC hour of a visit as ``YYYY-MM-DDTHH`` and the reason codes of its JSON array,
# in each dialect's words (ISO text on the file, timestamptz on the server).
_HOUR = {
    "sqlite": "substr(at, 1, 13)",
    "pg": "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24')",
}
_CODES = {
    "sqlite": "json_each(v.reasons) AS j",
    "pg": "jsonb_array_elements_text(v.reasons::jsonb) AS j(value)",
}
_BY_HOUR = (
    "SELECT {hour} AS h, count(*) FILTER (WHERE verdict = 'ADMIT'), "
    "count(*) FILTER (WHERE verdict = 'DENY') "
    "FROM visits WHERE at >= ? AND at < ? GROUP BY h ORDER BY h"
)
# a re-entry on the card held (art. 22) is no new visitor; it and the presentations not
# admitted without a refusal (the RIAJ unavailable, dismissed) are counted apart
_VISITORS = (
    "SELECT count(DISTINCT file_number) FILTER (WHERE verdict <> 'ALREADY_ADMITTED'), "
    "count(*) FILTER (WHERE verdict = 'ALREADY_ADMITTED'), "
    "count(*) FILTER (WHERE verdict = 'NOT_ADMITTED') "
    "FROM visits WHERE at >= ? AND at < ?"
)
_REASONS = (
    "SELECT v.verdict, j.value, count(*) FROM visits AS v, {codes} "
    "WHERE v.at >= ? AND v.at < ? AND v.verdict IN ('DENY', 'NOT_ADMITTED') "
    "GROUP BY v.verdict, j.value ORDER BY v.verdict, j.value"
)
_CARD_TYPES = (
    "SELECT c.card_type, count(*) FILTER (WHERE c.status <> 'VOIDED'), "
    "coalesce(sum(c.price_cents) FILTER (WHERE c.status <> 'VOIDED'), 0), "
    "count(*) FILTER (WHERE c.status = 'VOIDED') FROM visits AS v "
    "JOIN cards AS c ON c.visit_id = v.visit_id WHERE v.at >= ? AND v.at < ? "
    "GROUP BY c.card_type ORDER BY c.card_type"
)


def day_book_lines(tx: Tx, start: datetime, until: datetime) -> list[DayBookLine]:
    """The visits with ``start <= at < until`` (UTC), by time, each with its visitor and
    the card it gave (personal data: the caller audits the reading)."""
    people: dict[int, list[str]] = {}
    lines = []
    for row in tx.all(_DAY_BOOK, (tx.ts(start), tx.ts(until))):
        at, fn, surname, given, identity, doc_type, verdict, reasons = row[:8]
        card, card_type, price, desk, operator, status = row[8:]
        number = int(fn)
        person = people.get(number)
        if person is None:
            person = people[number] = [
                tx.open(v, "visitors", c, number)
                for c, v in (("surname", surname), ("given_names", given), ("identity", identity))
            ]
        lines.append(
            DayBookLine(
                at=when(at),
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


def figure_counts(tx: Tx, start: datetime, until: datetime) -> FigureCounts:
    """Admissions and refusals per UTC hour, cards per type (voided apart), refusal
    reasons and distinct visitors of the visits with ``start <= at < until``; the
    re-entries and the presentations not admitted (with their reasons) apart."""
    span = (tx.ts(start), tx.ts(until))
    hours = tx.all(_BY_HOUR.format(hour=_HOUR[tx.dialect]), span)
    reasons = tx.all(_REASONS.format(codes=_CODES[tx.dialect]), span)
    types = tx.all(_CARD_TYPES, span)
    counted = tx.one(_VISITORS, span)
    assert counted is not None
    visitors, reentries, not_admitted = counted
    return FigureCounts(
        by_hour=tuple(
            (codec.parse_ts(f"{hour}:00:00.000000Z"), int(admitted), int(denied))
            for hour, admitted, denied in hours
        ),
        card_types=tuple((str(name), int(n), int(cents)) for name, n, cents, _ in types if int(n)),
        voided=sum(int(voided) for *_, voided in types),
        reasons=tuple((str(code), int(n)) for verdict, code, n in reasons if verdict == "DENY"),
        visitors=int(visitors),
        reentries=int(reentries),
        not_admitted=int(not_admitted),
        not_admitted_reasons=tuple(
            (str(code), int(n)) for verdict, code, n in reasons if verdict == "NOT_ADMITTED"
        ),
    )


def access_report(tx: Tx, file_number: int) -> AccessReport | None:
    """Everything held about one person (GDPR art. 15): the file, the visits with their
    cards, the observations, the bans and staff entry of the same identity, and how many
    audit entries name the file. None when there is no such file."""
    visitor = visitors.by_number(tx, file_number)
    if visitor is None:
        return None
    timeline = tuple(
        TimelineEntry(v, None if v.card_number is None else cards.card(tx, v.card_number))
        for v in visitors.visits(tx, file_number)
    )
    found = tx.one("SELECT count(*) FROM audit WHERE subject = ?", (f"file:{file_number}",))
    assert found is not None
    return AccessReport(
        visitor=visitor,
        timeline=timeline,
        observations=tuple(visitors.observations(tx, file_number)),
        bans=tuple(people.bans(tx, visitor.identity)),
        staff=people.staff_member(tx, visitor.identity),
        consultations=int(found[0]),
    )


def desk_counters(store: Store, now: datetime) -> DeskCounters:
    """Admissions since Madrid midnight and in the last hour (both up to ``now``
    inclusive), and the cards not voided whose validity holds today (a ``CounterReader``
    once bound to the store)."""
    today = madrid_date(now)
    midnight, hour_ago = madrid_day_start(today), now - timedelta(hours=1)

    def counts(tx: Tx) -> DeskCounters:
        day, since = tx.day(today), tx.ts(min(midnight, hour_ago))
        row = tx.one(
            "SELECT count(*) FILTER (WHERE at >= ?), count(*) FILTER (WHERE at >= ?), "
            "(SELECT count(*) FROM cards WHERE status <> 'VOIDED' AND valid_from <= ? "
            "AND valid_until >= ?) FROM visits WHERE at >= ? AND at <= ? AND verdict = 'ADMIT'",
            (tx.ts(midnight), tx.ts(hour_ago), day, day, since, tx.ts(now)),
        )
        assert row is not None
        return DeskCounters(int(row[0]), int(row[1]), int(row[2]))

    return store.read(counts)
