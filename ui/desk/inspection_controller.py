"""The inspector's screen's controller: searches, timelines and exports of the visitor
file for the gaming inspectors and the game director (art. 20.4; arts. 14.1.b, 20.3).

A thin Qt layer over the services: :class:`admission.inspection.InspectionService`
(search, timeline) and the report service (``ctx.reports``: the exports and the daily
visitor book). Who may ask is decided there, not here: the window only does not offer
the screen to a clerk. Every call runs on the window's job runner (the store worker),
never on the GUI thread, and its answer comes back as a past-tense signal:

* ``results_found(list[Visitor])``, ``timeline_loaded(Timeline)``;
* ``export_written(str, object)`` - the file name and the service's ``RenderedExport``;
* ``query_refused(str)`` / ``export_failed(str)`` - a code for the catalogue
  (``admission.catalogue.text``): the screen shows its text and stays usable;
* ``busy_changed(bool)`` - a job is running (the screen's buttons wait for it).

Exports are of what is on screen: the last search's criteria and purpose, the timeline
shown. The file goes only where the operator chose (``ExportTarget``): an atomic write
that leaves nothing behind when it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Signal

from admission.accounts import Operator
from admission.errors import AdmissionError
from admission.inspection import InspectionService, Timeline
from admission.records import Visitor
from admission.reports import ExportFormat, ExportTarget, RenderedExport, ReportService
from ui.desk.desk_flow import DeskFlowCode, SessionView
from ui.desk.jobs import JobRunner

if TYPE_CHECKING:
    from admission.desk_ports import ExportTargets
    from ui.context import AppContext

__all__ = [
    "EXPORT_UNAVAILABLE",
    "InspectionController",
    "SearchRequest",
    "inspection_controller",
]

T = TypeVar("T")
# the report service is not in this context (an older composition root): say so
EXPORT_UNAVAILABLE = "EXPORT_FAILED"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What the search form holds: the keyword arguments of ``InspectionService.search``
    (and of ``ReportService.export_search``); empty fields are None."""

    name: str | None = None
    id_number: str | None = None
    card: int | None = None
    file_number: int | None = None
    date_from: date | None = None
    date_to: date | None = None
    observation: str | None = None

    def criteria(self) -> dict[str, Any]:
        return asdict(self)


class InspectionController(QObject):
    """Searches, timelines and exports for the screen, on ``runner``."""

    results_found = Signal(object)  # list[Visitor]
    timeline_loaded = Signal(object)  # Timeline
    export_written = Signal(str, object)  # file name, RenderedExport
    query_refused = Signal(str)  # code
    export_failed = Signal(str)  # code
    busy_changed = Signal(bool)

    def __init__(
        self,
        runner: JobRunner,
        session: SessionView,
        inspection: InspectionService,
        *,
        reports: ReportService | None = None,
        export_target: ExportTargets | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._runner = runner
        self._session = session
        self._inspection = inspection
        self._reports = reports
        self._target = export_target
        self._busy = 0
        self.last_search: tuple[str, SearchRequest] | None = None  # purpose, criteria
        self.results: list[Visitor] = []
        self.timeline: Timeline | None = None
        self.timeline_purpose = ""

    @property
    def can_export(self) -> bool:
        return self._reports is not None and self._target is not None

    @property
    def busy(self) -> bool:
        return self._busy > 0

    # -- the operator ------------------------------------------------------------------
    def _operator(self, refused: Callable[[str], None]) -> Operator | None:
        """Who asks: the operator signed in now (a locked desk asks nothing)."""
        operator = self._session.operator
        if operator is None or self._session.is_locked:
            refused(
                DeskFlowCode.SESSION_LOCKED if self._session.is_locked else DeskFlowCode.NO_OPERATOR
            )
            return None
        return operator

    def _submit(
        self,
        job: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[str], None],
    ) -> None:
        self._busy += 1
        if self._busy == 1:
            self.busy_changed.emit(True)

        def finish() -> None:
            self._busy -= 1
            if self._busy == 0:
                self.busy_changed.emit(False)

        def answered(answer: T) -> None:
            finish()
            done(answer)

        def refused(error: AdmissionError) -> None:
            finish()
            failed(str(error.code))

        self._runner.submit(job, answered, refused)

    def _refuse(self, code: str) -> None:
        self.query_refused.emit(str(code))

    def _export_refuse(self, code: str) -> None:
        self.export_failed.emit(str(code))

    # -- queries -----------------------------------------------------------------------
    def search(self, purpose: str, request: SearchRequest) -> None:
        """The visitors matching every criterion; refused without a purpose (the
        service's INSPECT_PURPOSE_INVALID) or without a criterion."""
        operator = self._operator(self._refuse)
        if operator is None:
            return
        inspection = self._inspection

        def job() -> Sequence[Visitor]:
            return inspection.search(operator, purpose, **request.criteria())

        def done(found: Sequence[Visitor]) -> None:
            self.last_search = (purpose, request)
            self.results = list(found)
            self.timeline = None
            self.results_found.emit(list(found))

        self._submit(job, done, self._refuse)

    def load_timeline(self, purpose: str, file_number: int) -> None:
        """One person's visits (audited with the purpose, found or not)."""
        operator = self._operator(self._refuse)
        if operator is None:
            return
        inspection = self._inspection

        def done(timeline: Timeline) -> None:
            self.timeline = timeline
            self.timeline_purpose = purpose
            self.timeline_loaded.emit(timeline)

        self._submit(
            lambda: inspection.timeline(operator, purpose, file_number), done, self._refuse
        )

    # -- exports -----------------------------------------------------------------------
    def _export(self, path: Path, job: Callable[[Operator, ExportTarget], RenderedExport]) -> None:
        operator = self._operator(self._export_refuse)
        if operator is None:
            return
        make_target = self._target
        if self._reports is None or make_target is None:
            self._export_refuse(EXPORT_UNAVAILABLE)
            return
        name = path.name

        def run() -> RenderedExport:
            # the save dialog asked before replacing a file: a file chosen there is
            # replaced; the visitor file and what belongs to it never (OUTPUT_PROTECTED)
            return job(operator, make_target(path, force=True))

        self._submit(
            run, lambda rendered: self.export_written.emit(name, rendered), self._export_refuse
        )

    def export_results(self, path: Path, fmt: str) -> None:
        """The last search's results (same criteria, same purpose) as PDF or CSV."""
        reports, last = self._reports, self.last_search
        if last is None:
            self._export_refuse("INSPECT_NO_CRITERIA")
            return
        purpose, request = last
        kind = ExportFormat(fmt)
        self._export(
            path,
            lambda operator, target: reports.export_search(  # type: ignore[union-attr]
                operator,
                purpose,
                kind,
                target,
                name=request.name,
                id_number=request.id_number,
                card=request.card,
                file_number=request.file_number,
                date_from=request.date_from,
                date_to=request.date_to,
                observation=request.observation,
            ),
        )

    def export_timeline(self, path: Path, fmt: str) -> None:
        """The timeline on screen as PDF or CSV."""
        reports, shown = self._reports, self.timeline
        if shown is None:
            self._export_refuse("SELECTION_REQUIRED")
            return
        purpose, number, kind = self.timeline_purpose, shown.visitor.file_number, ExportFormat(fmt)
        self._export(
            path,
            lambda operator, target: reports.export_timeline(  # type: ignore[union-attr]
                operator, purpose, number, kind, target
            ),
        )

    def export_day_book(self, path: Path, day: date, purpose: str) -> None:
        """The daily visitor book of ``day`` (a Madrid day) as PDF, for ``purpose``."""
        reports = self._reports
        self._export(
            path,
            lambda operator, target: reports.export_day_book(  # type: ignore[union-attr]
                operator, day, target, purpose=purpose
            ),
        )


def inspection_controller(
    ctx: AppContext, runner: JobRunner, session: SessionView, *, parent: QObject | None = None
) -> InspectionController:
    """The controller over the context's services: the inspection service over the
    visitor file, and the report service and export target when the context has them."""
    return InspectionController(
        runner,
        session,
        InspectionService(ctx.reads, ctx.reads, ctx.clock),
        reports=ctx.reports,
        export_target=ctx.export_target,
        parent=parent,
    )
