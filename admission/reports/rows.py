"""The canonical content of the reports: their rows, headings and CSV.

The content's digest is the SHA-256 of the CSV the rows make (:func:`csv_text`, without
the byte-order mark); the PDF prints it on every page, so an inspector checks a printout
against the audit trail (art. 20.4). :func:`figures_from_counts` turns the store's UTC
hours into the director's Madrid hours and days.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from admission.catalogue import text as catalogue_text
from admission.inspection import (
    Timeline,
)
from admission.records import (
    Visitor,
)
from admission.reports.model import AccessReport, DayBook, FigureCounts, Figures

BOM = b"\xef\xbb\xbf"  # so a spreadsheet reads the CSV's accents as UTF-8
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a cell a spreadsheet would run as a formula


def local(at: datetime) -> datetime:
    """``at`` in Madrid time."""
    from zoneinfo import ZoneInfo  # stdlib; tzdata package on Windows (as admission.ports)

    return at.astimezone(ZoneInfo("Europe/Madrid"))


def _when(at: datetime | None) -> str:
    return "" if at is None else local(at).isoformat(timespec="seconds")


def money(cents: int) -> str:
    """Cents as euros with two decimals, ``12.50`` (canonical text)."""
    return f"{cents // 100}.{cents % 100:02d}"


def _cell(value: str) -> str:
    """A cell a spreadsheet shows as text: a leading = + - @ gets a quote first."""
    return "'" + value if value.startswith(_FORMULA) else value


def csv_text(rows: Sequence[Sequence[str]]) -> str:
    """The canonical text of a report's rows: CSV, CRLF line ends, formula-safe cells."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(c) for c in row])
    return out.getvalue()


def csv_bytes(rows: Sequence[Sequence[str]]) -> bytes:
    """The CSV file: the byte-order mark, then :func:`csv_text` in UTF-8."""
    return BOM + csv_text(rows).encode("utf-8")


def content_digest(rows: Sequence[Sequence[str]]) -> str:
    """SHA-256 hex of :func:`csv_text` (the CSV file without its byte-order mark)."""
    return hashlib.sha256(csv_text(rows).encode("utf-8")).hexdigest()


def _opt(value: int | None) -> str:
    return "" if value is None else str(value)


# a column's heading in English (the CSV of an English window); Spanish is the source
_HEADINGS_EN = {
    "Ficha": "File",
    "Apellidos": "Surnames",
    "Nombre": "Given names",
    "Identidad": "Identity",
    "Fecha de nacimiento": "Date of birth",
    "Nacionalidad": "Nationality",
    "Primera visita": "First visit",
    "Última visita": "Last visit",
    "Fecha y hora": "Date and time",
    "Puesto": "Desk",
    "Empleado": "Clerk",
    "Resultado": "Outcome",
    "Motivos": "Reasons",
    "Documento presentado": "Document shown",
    "Tarjeta": "Card",
    "Tipo de tarjeta": "Card type",
    "Importe": "Amount",
    "Estado de la tarjeta": "Card status",
}
_LABEL_SUFFIX = {"es": " (texto)", "en": " (text)"}


def headings(header: Sequence[str], lang: str = "es") -> tuple[str, ...]:
    """A CSV header in ``lang``: the codes' columns keep their place, each followed by
    its human label's column ("Resultado (texto)", "Outcome (text)")."""
    english = lang == "en"
    return tuple(
        _HEADINGS_EN.get(h.removesuffix(_LABEL_SUFFIX["es"]), h)
        + (_LABEL_SUFFIX["en"] if h.endswith(_LABEL_SUFFIX["es"]) else "")
        if english
        else h
        for h in header
    )


def labels(codes: Sequence[str], lang: str = "es") -> str:
    """The catalogue's text of each code, in ``lang``, for the column beside them."""
    return "; ".join(catalogue_text(code, lang) for code in codes if code)


VISITOR_HEADER = (
    "Ficha",
    "Apellidos",
    "Nombre",
    "Identidad",
    "Fecha de nacimiento",
    "Nacionalidad",
    "Primera visita",
    "Última visita",
)


def visitor_rows(visitors: Sequence[Visitor], lang: str = "es") -> list[tuple[str, ...]]:
    """The header (in ``lang``) and one row per visitor (a search's export)."""
    rows: list[tuple[str, ...]] = [headings(VISITOR_HEADER, lang)]
    for v in visitors:
        rows.append(
            (
                str(v.file_number),
                v.surname,
                v.given_names,
                v.identity.text,
                "" if v.birth_date is None else v.birth_date.isoformat(),
                v.nationality,
                _when(v.first_seen),
                _when(v.last_seen),
            )
        )
    return rows


TIMELINE_HEADER = (
    "Ficha",
    "Apellidos",
    "Nombre",
    "Identidad",
    "Fecha y hora",
    "Puesto",
    "Empleado",
    "Resultado",
    "Resultado (texto)",
    "Motivos",
    "Motivos (texto)",
    "Documento presentado",
    "Tarjeta",
    "Tipo de tarjeta",
    "Importe",
    "Estado de la tarjeta",
    "Estado de la tarjeta (texto)",
)


def timeline_rows(timeline: Timeline, lang: str = "es") -> list[tuple[str, ...]]:
    """The header and one row per visit (one row with the person alone when none); the
    codes with their label in ``lang`` beside them."""
    v = timeline.visitor
    person = (str(v.file_number), v.surname, v.given_names, v.identity.text)
    rows: list[tuple[str, ...]] = [headings(TIMELINE_HEADER, lang)]
    for entry in timeline.entries:
        visit, card = entry.visit, entry.card
        rows.append(
            (
                *person,
                _when(visit.at),
                visit.desk_id,
                visit.operator,
                visit.verdict,
                labels((visit.verdict,), lang),
                " ".join(visit.reasons),
                labels(visit.reasons, lang),
                visit.document_type,
                _opt(visit.card_number),
                "" if card is None else card.card_type,
                "" if card is None else money(card.price_cents),
                "" if card is None else card.status.value,
                "" if card is None else labels((card.status.value,), lang),
            )
        )
    if not timeline.entries:
        rows.append((*person, *("",) * (len(TIMELINE_HEADER) - len(person))))
    return rows


DAY_BOOK_HEADER = (
    "Fecha y hora",
    "Ficha",
    "Apellidos",
    "Nombre",
    "Identidad",
    "Documento presentado",
    "Resultado",
    "Resultado (texto)",
    "Motivos",
    "Motivos (texto)",
    "Tarjeta",
    "Tipo de tarjeta",
    "Importe",
    "Puesto",
    "Empleado",
)


def day_book_rows(book: DayBook, lang: str = "es") -> list[tuple[str, ...]]:
    """The header and one row per visit of the day (the figures derive from them); the
    codes with their label in ``lang`` beside them."""
    rows: list[tuple[str, ...]] = [headings(DAY_BOOK_HEADER, lang)]
    for line in book.lines:
        card = _opt(line.card_number)
        if line.card_voided and card:
            card += " ANULADA"
        rows.append(
            (
                _when(line.at),
                str(line.file_number),
                line.surname,
                line.given_names,
                line.identity,
                line.document_type,
                line.verdict,
                labels((line.verdict,), lang),
                " ".join(line.reasons),
                labels(line.reasons, lang),
                card,
                line.card_type,
                money(line.price_cents) if line.card_number is not None else "",
                line.desk_id,
                line.operator,
            )
        )
    return rows


ACCESS_HEADER = ("Apartado", "Fecha y hora", "Dato", "Valor")


def access_rows(report: AccessReport) -> list[tuple[str, ...]]:
    """The header and one row per datum held about the person (GDPR art. 15)."""
    v = report.visitor
    rows: list[tuple[str, ...]] = [ACCESS_HEADER]
    rows += [
        ("Ficha", "", "Número de ficha", str(v.file_number)),
        ("Ficha", "", "Identidad", v.identity.text),
        ("Ficha", "", "Apellidos", v.surname),
        ("Ficha", "", "Nombre", v.given_names),
        (
            "Ficha",
            "",
            "Fecha de nacimiento",
            "" if v.birth_date is None else v.birth_date.isoformat(),
        ),
        ("Ficha", "", "Nacionalidad", v.nationality),
        ("Ficha", "", "Primera visita", _when(v.first_seen)),
        ("Ficha", "", "Última visita", _when(v.last_seen)),
    ]
    for entry in report.timeline:
        visit, card = entry.visit, entry.card
        value = " ".join(
            part
            for part in (
                visit.verdict,
                " ".join(visit.reasons),
                f"puesto {visit.desk_id}",
                f"empleado {visit.operator}",
                f"documento {visit.document_type} {visit.document_number}".strip(),
                f"registro {visit.registry.status}",
            )
            if part
        )
        rows.append(("Visita", _when(visit.at), str(visit.visit_id), value))
        if card is not None:
            state = card.status.value + (f" ({card.void_reason})" if card.void_reason else "")
            rows.append(
                (
                    "Tarjeta",
                    _when(card.issued_at),
                    str(card.number),
                    f"{card.card_type} {money(card.price_cents)} "
                    f"{card.valid_from.isoformat()}/{card.valid_until.isoformat()} {state}",
                )
            )
    for obs in report.observations:
        rows.append(("Observación", _when(obs.at), obs.author, obs.text))
    for ban in report.bans:
        state = "levantada " + _when(ban.lifted_at) if ban.lifted_at else "en el fichero"
        until = "sin caducidad" if ban.expires_at is None else "hasta " + _when(ban.expires_at)
        rows.append(
            (
                "Prohibición",
                _when(ban.created_at),
                str(ban.ban_id),
                f"{ban.reason} ({until}, {state})",
            )
        )
    if report.staff is not None:
        s = report.staff
        rows.append(
            ("Personal", "", s.role.value, f"{s.name} ({'activo' if s.active else 'baja'})")
        )
    rows.append(
        ("Registro de auditoría", "", "Entradas sobre esta ficha", str(report.consultations))
    )
    return rows


def figures_from_counts(date_from: date, date_to: date, counts: FigureCounts) -> Figures:
    """Madrid hours and days from the store's UTC hours (Madrid is a whole number of
    hours from UTC, so each UTC hour is one Madrid hour)."""
    per_hour = [0] * 24
    refused_hour = [0] * 24
    days: dict[date, int] = {}
    day = date_from
    while day <= date_to:
        days[day] = 0
        day += timedelta(days=1)
    admissions = refused = 0
    for start, admitted, denied in counts.by_hour:
        at = local(start)
        per_hour[at.hour] += admitted
        refused_hour[at.hour] += denied
        if at.date() in days:
            days[at.date()] += admitted
        admissions += admitted
        refused += denied
    types = sorted(counts.card_types, key=lambda t: (-t[1], t[0]))
    return Figures(
        date_from=date_from,
        date_to=date_to,
        per_hour=tuple(per_hour),
        per_day=tuple(days.items()),
        card_types=tuple((name, n) for name, n, _ in types),
        revenue_cents=sum(cents for _, _, cents in types),
        revenue_by_type=tuple((name, cents) for name, _, cents in types),
        refusals=tuple(sorted(counts.reasons, key=lambda r: (-r[1], r[0]))),
        admissions=admissions,
        refused=refused,
        visitors=counts.visitors,
        voided=counts.voided,
        refused_per_hour=tuple(refused_hour),
        reentries=counts.reentries,
        not_admitted=counts.not_admitted,
        not_admitted_reasons=tuple(
            sorted(counts.not_admitted_reasons, key=lambda r: (-r[1], r[0]))
        ),
    )
