"""The director's and the inspectors' reports and exports of the visitor file.

Art. 20.4 of Decreto 58/2006 keeps the visitor file confidential and open to the gaming
inspectors of the Comunidad; art. 14.1.b makes the game director answer for it; GDPR
art. 15 gives every person access to what is held about them. :class:`ReportService`
is the one door for the paper (and CSV) that leaves the file:

* ``export_search`` / ``export_timeline`` - an inspector's search or one person's
  visits, as PDF or CSV (INSPECTOR or DIRECTOR, with a stated purpose);
* ``day_book`` / ``export_day_book`` - the daily visitor book: every visit of a Madrid
  day with its verdict, reasons and card, the day's figures and the audit chain's head
  to keep outside the file (DIRECTOR or INSPECTOR);
* ``figures`` - admissions per hour and per day, card types, revenue, refusals by
  reason (DIRECTOR or INSPECTOR; no personal data);
* ``access_report`` / ``export_access_report`` - everything held about one person
  (GDPR art. 15; the DIRECTOR only, who answers for the file).

The roles are checked here, in the service, so every front end gets them. Every report
and export appends one audit entry (INSPECT_EXPORT, REPORT_DAY, REPORT_FIGURES,
ACCESS_REPORT) with the user name, the role used, the purpose, the format, the number
of rows, the content's digest and the file name; names, identity numbers and free text
only as the store's keyed hash, as :mod:`admission.inspection` records its queries.

An export goes render -> ``target.write`` (atomic) -> audit append; when the append
fails the written file is discarded and the error raised: no export leaves the file
without its entry in the trail.

The content's digest is the SHA-256 of its canonical text: the CSV the same rows make
(:func:`csv_text`, without the byte-order mark). The PDF prints it on every page, so an
inspector checks a printout against the trail (and a CSV file by hashing it without its
first three bytes).
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum, unique
from typing import Protocol

from admission.accounts import Operator, Role
from admission.catalogue import text as catalogue_text
from admission.codes import Code
from admission.errors import AdmissionError
from admission.inspection import (
    InspectionAudit,
    InspectionCode,
    InspectionError,
    InspectionReader,
    SearchCriteria,
    Timeline,
    TimelineEntry,
    allowed_role,
    check_search,
    checked_purpose,
    file_number_checked,
    id_number_checked,
    read_timeline,
)
from admission.ports import Clock, madrid_day_start
from admission.records import (
    AuditHead,
    Ban,
    Observation,
    StaffMember,
    Visitor,
)

__all__ = [
    "MAX_RANGE_DAYS",
    "AccessReport",
    "CasinoInfo",
    "DayBook",
    "DayBookLine",
    "ExportAudit",
    "ExportFormat",
    "ExportTarget",
    "FigureCounts",
    "Figures",
    "RenderedExport",
    "ReportCode",
    "ReportError",
    "ReportMeta",
    "ReportRenderer",
    "ReportService",
    "ReportStore",
    "access_rows",
    "content_digest",
    "csv_bytes",
    "csv_text",
    "day_book_rows",
    "deliver_export",
    "figures_from_counts",
    "local",
    "money",
    "timeline_rows",
    "visitor_rows",
]

MAX_RANGE_DAYS = 366  # the director's figures: at most a year at a time
BOM = b"\xef\xbb\xbf"  # so a spreadsheet reads the CSV's accents as UTF-8
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a cell a spreadsheet would run as a formula


@unique
class ReportCode(Code):
    """Why a report or an export is refused or not written."""

    REPORT_ROLE_REQUIRED = "REPORT_ROLE_REQUIRED"  # the role the report needs
    EXPORT_DISK_FULL = "EXPORT_DISK_FULL"  # ENOSPC: nothing written
    EXPORT_READ_ONLY = "EXPORT_READ_ONLY"  # EROFS/EACCES/EPERM: nothing written
    EXPORT_FAILED = "EXPORT_FAILED"  # any other write error: nothing left behind
    EXPORT_FORMAT_INVALID = "EXPORT_FORMAT_INVALID"  # not PDF/CSV, or not for this report
    ACCESS_SUBJECT_UNKNOWN = "ACCESS_SUBJECT_UNKNOWN"  # no file of that person
    ACCESS_SUBJECT_REQUIRED = "ACCESS_SUBJECT_REQUIRED"  # a file number or an id number
    ACCESS_SUBJECT_AMBIGUOUS = "ACCESS_SUBJECT_AMBIGUOUS"  # an id number of several files
    REPORT_DATE_INVALID = "REPORT_DATE_INVALID"  # from after to, or over a year


class ReportError(AdmissionError):
    code: Code = ReportCode.EXPORT_FAILED


class ExportFormat(StrEnum):
    PDF = "pdf"
    CSV = "csv"


@dataclass(frozen=True, slots=True)
class CasinoInfo:
    """The casino's header on every page (settings casino.name, casino.id, casino.address)."""

    name: str
    casino_id: str
    address: str


@dataclass(frozen=True, slots=True)
class ReportMeta:
    """What heads a report: the casino, the title, who exported it and when, the query
    (label, value) as asked."""

    title: str
    casino_name: str
    casino_id: str
    casino_address: str
    exported_by: str  # user name
    exported_by_name: str  # display name
    exported_at: datetime
    query: tuple[tuple[str, str], ...]
    # the language of the CSV's headers and of the labels beside its codes ("es", "en")
    language: str = "es"


@dataclass(frozen=True, slots=True)
class FigureCounts:
    """The store's aggregates over a UTC range (:meth:`ReportStore.figure_counts`),
    turned into Madrid hours and days by :func:`figures_from_counts`."""

    by_hour: tuple[tuple[datetime, int, int], ...]  # UTC hour start, admissions, refusals
    card_types: tuple[tuple[str, int, int], ...]  # type, cards not voided, their cents
    voided: int  # cards issued in the range and voided since
    reasons: tuple[tuple[str, int], ...]  # reason code, refused visits giving it
    visitors: int  # distinct people with a visit in the range (re-entries aside)
    # art. 22: re-entries on a card held - neither refusals nor visits
    reentries: int = 0
    # not admitted, not refused: the RIAJ unavailable (art. 20.1-2), dismissed
    not_admitted: int = 0
    not_admitted_reasons: tuple[tuple[str, int], ...] = ()  # reason code, count


@dataclass(frozen=True, slots=True)
class Figures:
    """The director's figures over Madrid days ``date_from``..``date_to`` (inclusive).
    Revenue counts the price of the cards issued, voided cards excluded."""

    date_from: date
    date_to: date
    per_hour: tuple[int, ...]  # 24 Madrid hours, admissions
    per_day: tuple[tuple[date, int], ...]  # every day of the range, admissions
    card_types: tuple[tuple[str, int], ...]  # type, cards (not voided)
    revenue_cents: int
    revenue_by_type: tuple[tuple[str, int], ...]
    refusals: tuple[tuple[str, int], ...]  # reason code, count
    admissions: int
    refused: int
    visitors: int
    voided: int = 0
    refused_per_hour: tuple[int, ...] = (0,) * 24
    reentries: int = 0  # re-entries on a card held (art. 22): not refusals, not visits
    not_admitted: int = 0  # neither admitted nor refused: the RIAJ unavailable, dismissed
    not_admitted_reasons: tuple[tuple[str, int], ...] = ()  # reason code, count


@dataclass(frozen=True, slots=True)
class DayBookLine:
    """One visit of the day: who, with which document, the verdict and its reasons,
    and the card it gave."""

    at: datetime
    file_number: int
    surname: str
    given_names: str
    identity: str  # the identity's text, KIND:COUNTRY:NUMBER
    document_type: str
    verdict: str
    reasons: tuple[str, ...]
    card_number: int | None
    card_type: str
    price_cents: int
    desk_id: str
    operator: str
    card_voided: bool = False


@dataclass(frozen=True, slots=True)
class DayBook:
    """The daily visitor book; ``audit_head`` is printed to be kept outside the file."""

    day: date
    lines: tuple[DayBookLine, ...]
    figures: Figures
    audit_head: AuditHead


@dataclass(frozen=True, slots=True)
class AccessReport:
    """Everything the file holds about one person (GDPR art. 15)."""

    visitor: Visitor
    timeline: tuple[TimelineEntry, ...]
    observations: tuple[Observation, ...]
    bans: tuple[Ban, ...]
    staff: StaffMember | None
    consultations: int  # audit entries whose subject is this file


@dataclass(frozen=True, slots=True)
class RenderedExport:
    format: ExportFormat
    rows: int
    digest: str  # SHA-256 hex of the canonical content (csv_text)
    size: int  # bytes written


class ExportTarget(Protocol):
    """Where an export goes (``hardware/printer/export_file.py`` FileExportTarget)."""

    def write(self, data: bytes) -> None:
        """Atomic: the whole file or nothing; ReportError EXPORT_* when it fails."""
        ...

    def discard(self) -> None:
        """Remove what :meth:`write` put there (the audit append failed)."""
        ...

    @property
    def name(self) -> str:
        """The file name only, for the audit entry."""
        ...


class ExportAudit(Protocol):
    """Where an export is recorded: the visitor file's audit trail."""

    def append(
        self, actor: str, action: str, subject: str, at: datetime, details: dict[str, str]
    ) -> object: ...


def deliver_export(
    store: ExportAudit,
    clock: Clock,
    operator: Operator,
    target: ExportTarget,
    data: bytes,
    fmt: ExportFormat,
    rows: Sequence[Sequence[str]],
    action: str,
    subject: str,
    details: dict[str, str],
) -> RenderedExport:
    """Write, then audit (art. 20.4); a failed append discards the file (no export
    unrecorded). The entry adds the format, the rows, the digest, the size and the file
    name to ``details``."""
    done = RenderedExport(fmt, len(rows) - 1, content_digest(rows), len(data))
    target.write(data)
    entry = {
        **details,
        "format": fmt.value,
        "rows": str(done.rows),
        "digest": done.digest,
        "size": str(done.size),
        "file": target.name,
    }
    try:
        store.append(operator.username, action, subject, clock.now(), entry)
    except BaseException:
        target.discard()
        raise
    return done


class ReportRenderer(Protocol):
    """PDF and CSV of the reports (``hardware/printer/reports.py`` ReportlabRenderer)."""

    def visitors(
        self, meta: ReportMeta, visitors: Sequence[Visitor], fmt: ExportFormat
    ) -> bytes: ...

    def timeline(self, meta: ReportMeta, timeline: Timeline, fmt: ExportFormat) -> bytes: ...

    def day_book(self, meta: ReportMeta, book: DayBook) -> bytes: ...

    def access_report(self, meta: ReportMeta, report: AccessReport) -> bytes: ...


class ReportStore(InspectionReader, InspectionAudit, Protocol):
    """The reads behind the reports (``db/reports.py``, ``db/fake_reports.py``) plus
    the inspectors' reads and the audit trail."""

    def day_book_lines(self, start: datetime, until: datetime) -> Sequence[DayBookLine]:
        """Visits with ``start <= at < until`` (UTC), by time, with visitor and card."""
        ...

    def figure_counts(self, start: datetime, until: datetime) -> FigureCounts: ...

    def access_report_data(self, file_number: int) -> AccessReport | None: ...

    def head(self) -> AuditHead: ...


# -- canonical content ----------------------------------------------------------------


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


def _format(fmt: object, allowed: Sequence[ExportFormat]) -> ExportFormat:
    try:
        checked = ExportFormat(str(fmt))
    except ValueError:
        raise ReportError("format", code=ReportCode.EXPORT_FORMAT_INVALID) from None
    if checked not in allowed:
        raise ReportError("format", code=ReportCode.EXPORT_FORMAT_INVALID)
    return checked


_BOTH = (ExportFormat.PDF, ExportFormat.CSV)
_PDF = (ExportFormat.PDF,)


class ReportService:
    """Reports and exports of the visitor file; see the module's docstring."""

    def __init__(
        self,
        store: ReportStore,
        clock: Clock,
        renderer: ReportRenderer,
        casino: CasinoInfo,
        *,
        language: Callable[[], str] = lambda: "es",
    ) -> None:
        self._store = store
        self._clock = clock
        self._renderer = renderer
        self._casino = casino
        self._language = language  # the window's language, read at each export

    def reconfigure(self, renderer: ReportRenderer, casino: CasinoInfo) -> None:
        """Saved settings take effect on the next report: the casino's details and the
        renderer (the card types' labels). Called on the store worker, between reports."""
        self._renderer = renderer
        self._casino = casino

    # -- the director's figures and the daily visitor book ----------------------------

    def figures(self, operator: Operator, date_from: date, date_to: date) -> Figures:
        """Admissions per Madrid hour and day, card types, revenue and refusals by reason
        over ``date_from``..``date_to`` (at most a year). No personal data; audited."""
        role = self._report_role(operator, (Role.DIRECTOR, Role.INSPECTOR))
        figures = self._figures(date_from, date_to)
        self._store.append(
            operator.username,
            "REPORT_FIGURES",
            "report:figures",
            self._clock.now(),
            {"role": role.value, "from": date_from.isoformat(), "to": date_to.isoformat()},
        )
        return figures

    def day_book(self, operator: Operator, day: date) -> DayBook:
        """The daily visitor book of Madrid day ``day``, for a screen; audited."""
        role = self._report_role(operator, (Role.DIRECTOR, Role.INSPECTOR))
        book = self._day_book(day)
        self._store.append(
            operator.username,
            "REPORT_DAY",
            f"day:{day.isoformat()}",
            self._clock.now(),
            {"role": role.value, "format": "screen", "rows": str(len(book.lines))},
        )
        return book

    def export_day_book(
        self, operator: Operator, day: date, target: ExportTarget, *, purpose: str
    ) -> RenderedExport:
        """The daily visitor book as a PDF written to ``target``, then audited with its
        purpose: it holds every name and document of the day (art. 20.4)."""
        role = self._report_role(operator, (Role.DIRECTOR, Role.INSPECTOR))
        why = checked_purpose(purpose)
        book = self._day_book(day)
        meta = self._meta(
            operator,
            f"Libro diario de visitantes del {day.strftime('%d/%m/%Y')}",
            (("Motivo", why), ("Día", day.isoformat())),
        )
        data = self._renderer.day_book(meta, book)
        rows = day_book_rows(book, meta.language)
        return self._deliver(
            operator,
            target,
            data,
            ExportFormat.PDF,
            rows,
            "REPORT_DAY",
            f"day:{day.isoformat()}",
            {
                "purpose": why,
                "role": role.value,
                "head": f"{book.audit_head.seq}:{book.audit_head.digest}",
            },
        )

    # -- the inspectors' exports -------------------------------------------------------

    def export_search(
        self,
        operator: Operator,
        purpose: str,
        fmt: ExportFormat,
        target: ExportTarget,
        *,
        name: str | None = None,
        id_number: str | None = None,
        card: int | None = None,
        file_number: int | None = None,
        date_from: date | None = None,
        date_to: date | None = None,
        observation: str | None = None,
        limit: int = 200,
    ) -> RenderedExport:
        """The visitors an inspector's search finds (the criteria of
        :meth:`admission.inspection.InspectionService.search`), as PDF or CSV."""
        checked = check_search(
            self._store,
            operator,
            purpose,
            name=name,
            id_number=id_number,
            card=card,
            file_number=file_number,
            date_from=date_from,
            date_to=date_to,
            observation=observation,
            limit=limit,
        )
        chosen = _format(fmt, _BOTH)
        found = self._store.inspect_visitors(checked.criteria, checked.limit)
        query = [("Motivo", checked.purpose)]
        query += _criteria_text(checked.criteria, date_from, date_to)
        meta = self._meta(operator, "Búsqueda en el fichero de visitantes", tuple(query))
        data = self._renderer.visitors(meta, found, chosen)
        return self._deliver(
            operator,
            target,
            data,
            chosen,
            visitor_rows(found, meta.language),
            "INSPECT_EXPORT",
            "file:search",
            checked.details,
        )

    def export_timeline(
        self,
        operator: Operator,
        purpose: str,
        file_number: int,
        fmt: ExportFormat,
        target: ExportTarget,
    ) -> RenderedExport:
        """One person's visits, oldest first, as PDF or CSV (INSPECTOR or DIRECTOR)."""
        role = allowed_role(operator)
        why = checked_purpose(purpose)
        number = file_number_checked(file_number)
        chosen = _format(fmt, _BOTH)
        timeline = read_timeline(self._store, number)
        details = {"purpose": why, "role": role.value, "kind": "timeline"}
        if timeline is None:  # every query is recorded, found or not (art. 20.4)
            self._store.append(
                operator.username,
                "INSPECT_EXPORT",
                f"file:{number}",
                self._clock.now(),
                {**details, "found": "no"},
            )
            raise InspectionError("no such file", code=InspectionCode.INSPECT_FILE_UNKNOWN)
        meta = self._meta(
            operator,
            f"Visitas de la ficha {number}",
            (("Motivo", why), ("Ficha", str(number))),
        )
        data = self._renderer.timeline(meta, timeline, chosen)
        return self._deliver(
            operator,
            target,
            data,
            chosen,
            timeline_rows(timeline, meta.language),
            "INSPECT_EXPORT",
            f"file:{number}",
            details,
        )

    # -- the access-request report (GDPR art. 15) ----------------------------------------

    def access_report(
        self,
        operator: Operator,
        purpose: str,
        *,
        file_number: int | None = None,
        id_number: str | None = None,
    ) -> AccessReport:
        """Everything held about one person, by file number or identity number; the
        game director only (art. 14.1.b); audited."""
        _why, number, details = self._access_subject(operator, purpose, file_number, id_number)
        report = self._store.access_report_data(number)
        assert report is not None  # the subject was found just now
        self._store.append(
            operator.username,
            "ACCESS_REPORT",
            f"file:{number}",
            self._clock.now(),
            {**details, "format": "screen"},
        )
        return report

    def export_access_report(
        self,
        operator: Operator,
        purpose: str,
        target: ExportTarget,
        *,
        file_number: int | None = None,
        id_number: str | None = None,
    ) -> RenderedExport:
        """The access-request report as a PDF written to ``target``, then audited."""
        why, number, details = self._access_subject(operator, purpose, file_number, id_number)
        report = self._store.access_report_data(number)
        assert report is not None
        meta = self._meta(
            operator,
            "Informe de acceso a datos personales (art. 15 RGPD)",
            (("Motivo", why), ("Ficha", str(number))),
        )
        data = self._renderer.access_report(meta, report)
        return self._deliver(
            operator,
            target,
            data,
            ExportFormat.PDF,
            access_rows(report),
            "ACCESS_REPORT",
            f"file:{number}",
            details,
        )

    # -- internals ------------------------------------------------------------------------

    @staticmethod
    def _report_role(operator: Operator, roles: Sequence[Role]) -> Role:
        for role in roles:
            if operator.has(role):
                return role
        raise ReportError(
            "the role " + " or ".join(r.value for r in roles) + " is needed",
            code=ReportCode.REPORT_ROLE_REQUIRED,
        )

    def _figures(self, date_from: date, date_to: date) -> Figures:
        if (
            not isinstance(date_from, date)
            or not isinstance(date_to, date)
            or isinstance(date_from, datetime)
            or isinstance(date_to, datetime)
            or date_from > date_to
            or (date_to - date_from).days >= MAX_RANGE_DAYS
        ):
            raise ReportError("dates", code=ReportCode.REPORT_DATE_INVALID)
        counts = self._store.figure_counts(
            madrid_day_start(date_from), madrid_day_start(date_to + timedelta(days=1))
        )
        return figures_from_counts(date_from, date_to, counts)

    def _day_book(self, day: date) -> DayBook:
        figures = self._figures(day, day)
        lines = self._store.day_book_lines(
            madrid_day_start(day), madrid_day_start(day + timedelta(days=1))
        )
        return DayBook(day, tuple(lines), figures, self._store.head())

    def _access_subject(
        self,
        operator: Operator,
        purpose: str,
        file_number: int | None,
        id_number: str | None,
    ) -> tuple[str, int, dict[str, str]]:
        """The purpose, the file asked for and the audit details (with the role used:
        the DIRECTOR's)."""
        role = self._report_role(operator, (Role.DIRECTOR,))
        why = checked_purpose(purpose)
        if (file_number is None) == (id_number is None):
            raise ReportError("file or id", code=ReportCode.ACCESS_SUBJECT_REQUIRED)
        details = {"purpose": why, "role": role.value}
        if file_number is not None:
            number = file_number_checked(file_number)
            found = self._store.visitor(number) is not None
        else:
            assert id_number is not None
            wanted = id_number_checked(id_number)
            details["id"] = self._store.keyed_hash(wanted)
            matches = self._store.inspect_visitors(SearchCriteria(id_number=wanted), 2)
            if len(matches) > 1:
                raise ReportError("several files", code=ReportCode.ACCESS_SUBJECT_AMBIGUOUS)
            found = bool(matches)
            number = matches[0].file_number if matches else 0
        if not found:
            self._store.append(
                operator.username,
                "ACCESS_REPORT",
                f"file:{number}" if number else "file:search",
                self._clock.now(),
                {**details, "found": "no"},
            )
            raise ReportError("no such person", code=ReportCode.ACCESS_SUBJECT_UNKNOWN)
        return why, number, details

    def _meta(
        self, operator: Operator, title: str, query: tuple[tuple[str, str], ...]
    ) -> ReportMeta:
        return ReportMeta(
            title=title,
            casino_name=self._casino.name,
            casino_id=self._casino.casino_id,
            casino_address=self._casino.address,
            exported_by=operator.username,
            exported_by_name=operator.display_name,
            exported_at=self._clock.now(),
            query=query,
            language="en" if self._language() == "en" else "es",
        )

    def _deliver(
        self,
        operator: Operator,
        target: ExportTarget,
        data: bytes,
        fmt: ExportFormat,
        rows: Sequence[Sequence[str]],
        action: str,
        subject: str,
        details: dict[str, str],
    ) -> RenderedExport:
        return deliver_export(
            self._store, self._clock, operator, target, data, fmt, rows, action, subject, details
        )


def _criteria_text(
    criteria: SearchCriteria, date_from: date | None, date_to: date | None
) -> list[tuple[str, str]]:
    """The search as asked, for the report's heading (the report is the target)."""
    out: list[tuple[str, str]] = []
    if criteria.name is not None:
        out.append(("Nombre", criteria.name))
    if criteria.id_number is not None:
        out.append(("Documento", criteria.id_number))
    if criteria.card is not None:
        out.append(("Tarjeta", str(criteria.card)))
    if criteria.file_number is not None:
        out.append(("Ficha", str(criteria.file_number)))
    if date_from is not None:
        out.append(("Desde", date_from.isoformat()))
    if date_to is not None:
        out.append(("Hasta", date_to.isoformat()))
    if criteria.observation is not None:
        out.append(("Observación", criteria.observation))
    return out
