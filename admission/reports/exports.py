"""The one door for the paper and CSV that leave the visitor file (art. 20.4, 14.1.b;
GDPR art. 15): :class:`ReportService` checks the roles, renders, writes and audits;
:func:`deliver_export` writes, then audits, and discards the file when the audit fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta

from admission.accounts import Operator, Role
from admission.inspection import (
    InspectionCode,
    InspectionError,
    SearchCriteria,
    allowed_role,
    check_search,
    checked_purpose,
    file_number_checked,
    id_number_checked,
    read_timeline,
)
from admission.ports import Clock, madrid_day_start
from admission.reports.model import (
    MAX_RANGE_DAYS,
    AccessReport,
    CasinoInfo,
    DayBook,
    ExportAudit,
    ExportFormat,
    ExportTarget,
    Figures,
    RenderedExport,
    ReportCode,
    ReportError,
    ReportMeta,
    ReportRenderer,
    ReportStore,
)
from admission.reports.rows import (
    access_rows,
    content_digest,
    day_book_rows,
    figures_from_counts,
    timeline_rows,
    visitor_rows,
)


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
