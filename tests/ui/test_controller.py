"""The desk flow through the controller, on the real demo file: a scan is evaluated,
Enter records it once under the signed-in operator and prints its card (arts. 20-23)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from pytestqt.qtbot import QtBot

from admission.accounts import Operator
from admission.cards.verification import CardCheckStatus, CardVerification
from admission.clock import FixedClock
from admission.counters import DeskCounters
from admission.desk import AdmissionResult
from admission.generators.demo_people import DemoPerson, demo_people
from admission.ports import madrid_date
from admission.verdict import Outcome, Reason
from tests.ui.conftest import DIRECTOR, FakeSession
from ui.context import AppContext
from ui.desk.controller import DeskController, DeskState
from ui.desk.desk_flow import DeskFlowCode, DeskVerdict
from ui.desk.workers import StoreWorker

WAIT = 10_000


@pytest.fixture
def worker() -> Iterator[StoreWorker]:
    runner = StoreWorker()
    yield runner
    runner.stop()


@pytest.fixture
def controller(demo_ctx: AppContext, session: FakeSession, worker: StoreWorker) -> DeskController:
    return DeskController(demo_ctx, session, worker, authorise=lambda purpose: DIRECTOR)


def people(ctx: AppContext, count: int = 6) -> list[DemoPerson]:
    return demo_people(count, seed=7, today=madrid_date(ctx.clock.now()))


def show(qtbot: QtBot, controller: DeskController, lines: list[str]) -> DeskVerdict:
    with qtbot.waitSignal(controller.verdict_ready, timeout=WAIT) as got:
        controller.submit_mrz(lines)
    verdict = got.args[0]
    assert isinstance(verdict, DeskVerdict)
    return verdict


def test_a_scan_is_shown_then_enter_records_once_and_prints(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    person = people(demo_ctx)[0]
    verdict = show(qtbot, controller, person.mrz(madrid_date(demo_ctx.clock.now())))
    assert verdict.evaluation.verdict.outcome is Outcome.ADMIT and verdict.file_number is None
    with qtbot.waitSignal(controller.card_printed, timeout=WAIT) as printed:
        with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded:
            controller.admit()
        controller.admit()  # a second Enter while recording: nothing
    result = recorded.args[0]
    assert isinstance(result, AdmissionResult) and result.card is not None
    assert printed.args == [result.card.number]
    controller.admit()  # and after recording: nothing
    worker.wait_idle()
    qtbot.wait(50)
    visits = demo_ctx.store.visits(result.recorded.file_number)
    assert [(v.operator, v.verdict) for v in visits] == [("clerk1", "ADMIT")]
    assert demo_ctx.store.last_card_number() == result.card.number
    assert controller.state is DeskState.RECORDED


def test_a_garbled_mrz_is_refused_and_nothing_is_asked(
    qtbot: QtBot, controller: DeskController
) -> None:
    with qtbot.waitSignal(controller.scan_rejected, timeout=WAIT) as got:
        controller.submit_mrz(["P<ESPGARBAGE", "123"])
    code, message = got.args
    assert code and message and message != code
    assert controller.state is DeskState.IDLE


def test_locked_or_signed_out_sessions_drop_reader_input(
    qtbot: QtBot, controller: DeskController, session: FakeSession, demo_ctx: AppContext
) -> None:
    session.is_locked = True
    lines = people(demo_ctx)[0].mrz(madrid_date(demo_ctx.clock.now()))
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        controller.submit_mrz(lines)
    assert controller.state is DeskState.IDLE
    session.is_locked = False
    session.operator = None
    with qtbot.waitSignal(controller.operation_failed, timeout=WAIT) as failed:
        controller.admit()
    assert failed.args[0] == DeskFlowCode.NO_OPERATOR


def test_warnings_past_ban_and_scanned_again(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext
) -> None:
    from admission.documents import document_from_mrz
    from admission.mrz.parse import parse_mrz

    today = madrid_date(demo_ctx.clock.now())
    lines = people(demo_ctx)[1].mrz(today)
    identity = document_from_mrz(parse_mrz(lines, today=today)).identity
    now = demo_ctx.clock.now()
    demo_ctx.desk.add_ban(identity, "demo", "Director", expires_at=now + timedelta(days=1))
    ban = demo_ctx.store.bans(identity)[0]
    demo_ctx.desk.lift_ban(ban.ban_id, "cumplida", "Director")
    first = show(qtbot, controller, lines)
    assert DeskFlowCode.PAST_BAN in first.warnings
    assert DeskFlowCode.SCANNED_RECENTLY not in first.warnings
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        controller.submit_mrz(lines)  # still under the camera: shown already
    controller.clear()
    second = show(qtbot, controller, lines)
    assert DeskFlowCode.SCANNED_RECENTLY in second.warnings


def test_supervisor_is_recorded_with_the_director_who_authorised(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext
) -> None:
    from admission.documents import document_from_mrz
    from admission.mrz.parse import parse_mrz
    from admission.records import StaffMember, StaffRole

    today = madrid_date(demo_ctx.clock.now())
    lines = people(demo_ctx)[2].mrz(today)
    doc = document_from_mrz(parse_mrz(lines, today=today))
    demo_ctx.store.add_staff(
        StaffMember(doc.identity, "Crupier", StaffRole.STAFF), "Director", demo_ctx.clock.now()
    )
    verdict = show(qtbot, controller, lines)
    assert verdict.evaluation.verdict.outcome is Outcome.SUPERVISOR
    assert Reason.CASINO_STAFF in verdict.evaluation.verdict.reasons
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded:
        controller.admit()  # Enter on an overridable SUPERVISOR asks the director
    result = recorded.args[0]
    assert result.verdict.outcome is Outcome.ADMIT and result.authorised_by == "director1"


def test_a_cancelled_authorisation_issues_no_card_and_is_recorded_when_dismissed(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession, worker: StoreWorker
) -> None:
    asked: list[str] = []

    def nobody(purpose: str) -> Operator | None:
        asked.append(purpose)
        return None

    controller = DeskController(demo_ctx, session, worker, authorise=nobody)
    from admission.documents import document_from_mrz
    from admission.mrz.parse import parse_mrz
    from admission.records import StaffMember, StaffRole

    today = madrid_date(demo_ctx.clock.now())
    lines = people(demo_ctx)[3].mrz(today)
    doc = document_from_mrz(parse_mrz(lines, today=today))
    demo_ctx.store.add_staff(
        StaffMember(doc.identity, "Crupier", StaffRole.STAFF), "Director", demo_ctx.clock.now()
    )
    show(qtbot, controller, lines)
    with qtbot.waitSignal(controller.operation_failed, timeout=WAIT) as failed:
        controller.admit()
    assert failed.args[0] == DeskFlowCode.AUTHORISATION_CANCELLED and asked == ["CASINO_STAFF"]
    assert controller.state is DeskState.SHOWN
    assert demo_ctx.store.find_visitor(doc.identity) is None  # on screen, not recorded yet
    with qtbot.waitSignal(controller.dismissal_recorded, timeout=WAIT) as recorded:
        controller.clear()  # Esc: recorded as it was shown (arts. 20, 22), no card
    result = recorded.args[0]
    assert result.card is None and result.verdict.outcome is Outcome.SUPERVISOR
    visits = demo_ctx.store.visits(result.recorded.file_number)
    assert [(v.verdict, v.operator, v.card_number) for v in visits] == [
        ("SUPERVISOR", "clerk1", None)
    ]
    assert demo_ctx.store.last_card_number() == 0


def test_a_card_code_is_checked_and_other_codes_refused(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext
) -> None:
    verdict = show(qtbot, controller, people(demo_ctx)[4].mrz(madrid_date(demo_ctx.clock.now())))
    assert verdict.evaluation.verdict.outcome is Outcome.ADMIT
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded:
        controller.admit()
    number = recorded.args[0].card.number
    with qtbot.waitSignal(controller.card_checked, timeout=WAIT) as checked:
        controller.submit_code(demo_ctx.card_code(number))
    answer = checked.args[0]
    assert isinstance(answer, CardVerification)
    assert answer.status is CardCheckStatus.VALID and answer.card_number == number
    signed = demo_ctx.signed_card_code(number)  # the QR's code (art. 22.4), wedge-typed
    with qtbot.waitSignal(controller.card_checked, timeout=WAIT) as checked:
        controller.submit_code(signed.replace("-", "'"))
    answer = checked.args[0]
    assert answer.status is CardCheckStatus.VALID and answer.signed
    with qtbot.waitSignal(controller.scan_rejected, timeout=WAIT) as rejected:
        controller.submit_code("8412345678901")
    assert rejected.args[0] == DeskFlowCode.NOT_A_CARD_CODE


def test_counters_count_admissions_and_valid_cards(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext
) -> None:
    show(qtbot, controller, people(demo_ctx)[5].mrz(madrid_date(demo_ctx.clock.now())))
    with qtbot.waitSignal(controller.counters_changed, timeout=WAIT) as counted:
        controller.admit()
    counters = counted.args[0]
    assert counters == DeskCounters(1, 1, 1)


def test_a_document_expiring_today_is_flagged(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext
) -> None:
    from admission.generators.mrz_build import build_td3

    today = madrid_date(demo_ctx.clock.now())
    person = people(demo_ctx)[0]
    lines = build_td3(
        document_code="P",
        issuer="FRA",
        surname=person.surname,
        given_names=person.given_names,
        document_number="XK1234567",
        nationality="FRA",
        birth_date=person.birth_date,
        sex="M",
        expiry_date=today,
        personal_number="",
    )
    verdict = show(qtbot, controller, lines)
    assert DeskFlowCode.DOCUMENT_EXPIRES_TODAY in verdict.warnings


def test_a_verdict_left_too_long_on_screen_is_not_recorded(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    show(qtbot, controller, people(demo_ctx)[0].mrz(madrid_date(demo_ctx.clock.now())))
    desk_clock.advance(timedelta(minutes=3))
    with qtbot.waitSignal(controller.operation_failed, timeout=WAIT) as failed:
        controller.admit()
    assert failed.args[0] == "EVALUATION_STALE"
    assert controller.state is DeskState.IDLE and controller.current is None
    assert demo_ctx.store.last_card_number() == 0


def test_record_as_shown_evaluates_a_stale_refusal_again_and_never_records_an_admit(
    demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    from admission.documents import document_from_mrz
    from admission.mrz.parse import parse_mrz
    from admission.records import StaffMember, StaffRole
    from ui.desk.desk_flow import record_as_shown

    today = madrid_date(demo_ctx.clock.now())
    admitted = people(demo_ctx)[0].mrz(today)
    admit = demo_ctx.desk.evaluate(document_from_mrz(parse_mrz(admitted, today=today)))
    assert admit.verdict.outcome is Outcome.ADMIT
    assert record_as_shown(demo_ctx.desk, admit, operator="clerk1") is None  # Enter only
    assert demo_ctx.store.find_visitor(admit.document.identity) is None

    staff = document_from_mrz(parse_mrz(people(demo_ctx)[3].mrz(today), today=today))
    demo_ctx.store.add_staff(
        StaffMember(staff.identity, "Crupier", StaffRole.STAFF), "Director", demo_ctx.clock.now()
    )
    shown = demo_ctx.desk.evaluate(staff)
    desk_clock.advance(timedelta(minutes=3))  # past EVALUATION_MAX_AGE_SECONDS
    result = record_as_shown(demo_ctx.desk, shown, operator="clerk1")
    assert result is not None and result.evaluation.at == demo_ctx.clock.now()
    assert result.card is None and result.verdict.outcome is Outcome.SUPERVISOR


def _minor_lines(ctx: AppContext) -> list[str]:
    from ui.desk.demo_scenario import demo_cases

    today = madrid_date(ctx.clock.now())
    return list(next(c for c in demo_cases(today) if c.kind == "minor").lines)


def _denials(ctx: AppContext, lines: list[str]) -> list[str]:
    from ui.desk.desk_flow import document_from_lines

    document, _ = document_from_lines(lines, madrid_date(ctx.clock.now()))
    assert document is not None
    visitor = ctx.store.find_visitor(document.identity)
    return [] if visitor is None else [v.verdict for v in ctx.store.visits(visitor.file_number)]


def _deny_once_through_the_camera(
    qtbot: QtBot, controller: DeskController, worker: StoreWorker, lines: list[str]
) -> None:
    with (
        qtbot.waitSignal(controller.admission_recorded, timeout=WAIT),
        qtbot.waitSignal(controller.verdict_ready, timeout=WAIT),
    ):
        controller.submit_camera_mrz(lines)
    controller.clear()  # Esc: the refused document stays under the camera
    worker.wait_idle()


def test_a_refused_document_left_under_the_camera_is_not_refused_again(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    lines = _minor_lines(demo_ctx)
    _deny_once_through_the_camera(qtbot, controller, worker, lines)
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=400):
        controller.submit_camera_mrz(lines)  # the camera reads it again: ignored
        controller.report_hint("READING")  # still in view
        controller.submit_camera_mrz(lines)
    worker.wait_idle()
    assert _denials(demo_ctx, lines) == ["DENY"]
    # the document leaves the view and is presented again: a new presentation
    controller.report_hint("NO_DOCUMENT")
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        controller.submit_camera_mrz(lines)
    worker.wait_idle()
    qtbot.wait(50)
    assert _denials(demo_ctx, lines) == ["DENY", "DENY"]


def test_another_document_read_by_the_camera_resets_the_memory(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    lines = _minor_lines(demo_ctx)
    other = people(demo_ctx)[0].mrz(madrid_date(demo_ctx.clock.now()))
    _deny_once_through_the_camera(qtbot, controller, worker, lines)
    with qtbot.waitSignal(controller.verdict_ready, timeout=WAIT):
        controller.submit_camera_mrz(other)
    controller.clear()
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        controller.submit_camera_mrz(lines)  # the refused one back under the camera
    worker.wait_idle()
    qtbot.wait(50)
    assert _denials(demo_ctx, lines) == ["DENY", "DENY"]


def test_a_reader_rescan_of_the_same_document_is_evaluated(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    lines = _minor_lines(demo_ctx)
    _deny_once_through_the_camera(qtbot, controller, worker, lines)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        controller.submit_mrz(lines)  # the clerk scans it deliberately with the reader
    worker.wait_idle()
    qtbot.wait(50)
    assert _denials(demo_ctx, lines) == ["DENY", "DENY"]


def test_camera_worker_signals_are_taken_as_the_camera(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    """The window wires ``CameraWorker.mrz_read`` to ``submit_mrz``: the sender tells."""
    from ui.desk.workers import CameraWorker

    lines = _minor_lines(demo_ctx)
    camera = CameraWorker(lambda: None, live=None)  # type: ignore[arg-type,return-value]
    camera.mrz_read.connect(controller.submit_mrz)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        camera.mrz_read.emit(tuple(lines))
    controller.clear()
    worker.wait_idle()
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=400):
        camera.mrz_read.emit(tuple(lines))
    assert _denials(demo_ctx, lines) == ["DENY"]


class ScriptedServer:
    """A ``ServerLink`` whose answers the test sets: a round trip, or no answer."""

    def __init__(self) -> None:
        self.up = True
        self.asked = 0
        self.moved: datetime | None = None  # a failover's time
        self.sync = ""  # the primary's warning code

    def describe(self) -> str:
        return "db.casino:5432/admission"

    def failover_at(self) -> datetime | None:
        return self.moved

    def warning(self) -> str:
        return self.sync

    def measure(self) -> float:
        self.asked += 1
        if not self.up:
            from admission.errors import StoreError
            from db.pg.connect import PgConnectCode

            raise StoreError("no route", code=PgConnectCode.UNREACHABLE)
        return 0.004

    def median_ms(self) -> float | None:
        return 4.0 if self.up else None


class CountingVouchers:
    def __init__(self) -> None:
        self.formalised = 0
        self.queued = 1

    def issue(self, new: object) -> object:
        raise AssertionError("not issued here")

    def pending(self) -> list[object]:
        return [object()] * self.queued

    def formalise(self) -> object:
        self.formalised += 1
        self.queued = 0
        return "report"


def test_a_server_desk_says_at_once_when_the_server_stops_and_formalises_on_its_return(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession, worker: StoreWorker
) -> None:
    server, vouchers = ScriptedServer(), CountingVouchers()
    ctx = replace(demo_ctx, server=server, offline_vouchers=vouchers)  # type: ignore[arg-type]
    controller = DeskController(ctx, session, worker, authorise=lambda purpose: DIRECTOR)
    # the first answer: where, how far; a voucher an earlier session queued is sent
    checked: list[tuple[str, object]] = []
    controller.server_checked.connect(lambda where, ms: checked.append((where, ms)))
    with qtbot.waitSignal(controller.vouchers_formalised, timeout=WAIT):
        controller.poll_file()
    assert checked == [("db.casino:5432/admission", 4.0)]
    assert controller.server_reachable and vouchers.formalised == 1

    server.up = False
    with qtbot.waitSignal(controller.server_changed, timeout=WAIT) as changed:
        controller.poll_file()
    assert changed.args == [False] and not controller.server_reachable
    with qtbot.waitSignal(controller.scan_rejected, timeout=WAIT) as refused:
        controller.submit_mrz(people(demo_ctx)[0].mrz(madrid_date(demo_ctx.clock.now())))
    assert refused.args[0] == "DESK_SERVER_AWAY" and controller.state is DeskState.IDLE

    vouchers.queued = 1  # a provisional voucher given meanwhile (art. 23.4)
    server.up = True
    with qtbot.waitSignal(controller.vouchers_formalised, timeout=WAIT) as sent:
        controller.poll_file()
    assert sent.args == ["report"] and vouchers.formalised == 2 and controller.server_reachable


def test_the_status_bar_shows_the_server_and_its_latency(qtbot: QtBot) -> None:
    from ui.desk.widgets.status_bar import DeskStatusBar

    bar = DeskStatusBar()
    qtbot.addWidget(bar)
    assert "Fichero" in bar.text_of("database")
    bar.set_server("db.casino:5432/admission", 3.4)
    assert bar.text_of("database") == "● Servidor db.casino:5432/admission · 3 ms"
    bar.set_server("db.casino:5432/admission", None)
    assert bar.text_of("database") == "▲ Servidor db.casino:5432/admission: sin respuesta"
    assert bar.labels["database"].styleSheet()  # shown as an alert


def test_the_status_bar_names_the_primary_and_shows_a_failover_as_it_happens(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession, worker: StoreWorker
) -> None:
    from ui.desk.widgets.status_bar import DeskStatusBar

    server = ScriptedServer()
    ctx = replace(demo_ctx, server=server, offline_vouchers=CountingVouchers())  # type: ignore[arg-type]
    controller = DeskController(ctx, session, worker, authorise=lambda purpose: DIRECTOR)
    bar = DeskStatusBar()
    qtbot.addWidget(bar)
    controller.server_checked.connect(bar.set_server)
    controller.server_followed.connect(bar.set_followed)
    with qtbot.waitSignal(controller.server_followed, timeout=WAIT):
        controller.poll_file()
    assert bar.text_of("database") == "● Servidor db.casino:5432/admission · 4 ms"
    assert not bar.sync_warning.isVisible() and not bar.sync_warning.text()
    # the primary died, the standby was promoted at 23:04 Madrid time; it runs alone
    server.moved = datetime(2026, 12, 5, 22, 4, tzinfo=UTC)
    server.sync = "PG_NO_SYNC_STANDBY"
    with qtbot.waitSignal(controller.server_followed, timeout=WAIT) as followed:
        controller.poll_file()
    assert followed.args == [server.moved, "PG_NO_SYNC_STANDBY"]
    assert bar.text_of("database") == "● Servidor db.casino:5432/admission · 4 ms · relevo 23:04"
    assert bar.sync_warning.text().startswith("▲ Sin réplica síncrona")
    assert bar.sync_warning.toolTip() == "PG_NO_SYNC_STANDBY"
    server.up = False  # a failover still shown while the server does not answer
    with qtbot.waitSignal(controller.server_followed, timeout=WAIT):
        controller.poll_file()
    assert bar.text_of("database") == (
        "▲ Servidor db.casino:5432/admission: sin respuesta · relevo 23:04"
    )
