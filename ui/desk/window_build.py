"""The desk window assembled (arts. 20-23 of Decreto 58/2006): :func:`build_desk_window`
makes the controller over the store worker, the window, its menus (:mod:`ui.desk.menus`,
one module per menu, attached through the window's own API), the help and audit menus,
the device watch of the printer (and of the chip reader), the camera, the document readers
and the chip reader's own worker - the workers adopted by the window, which starts and
stops them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QApplication,
)

from admission.accounts import Operator
from admission.devices import (
    Camera,
    DeviceStatus,
    DocumentReader,
    SoundPlayer,
    printer_refusal_code,
)
from ui.desk.chip_reading import ChipStation, DeskChip
from ui.desk.controller import DeskController
from ui.desk.desk_flow import SessionView
from ui.desk.jobs import JobRunner
from ui.desk.menus import attach_desk_menus
from ui.desk.menus.audit import attach_audit_menu
from ui.desk.menus.help import HelpMenu
from ui.desk.workers import CameraWorker, DeviceWatch, ReaderWorker, StoreWorker

if TYPE_CHECKING:
    from ui.context import AppContext

from ui.desk.desk_window import DeskWindow

__all__ = ["build_desk_window"]


def build_desk_window(
    ctx: AppContext,
    session: SessionView,
    *,
    authorise: Callable[[str], Operator | None],
    demo: bool | None = None,
    camera: Callable[[], Camera] | None = None,
    readers: Sequence[DocumentReader] = (),
    runner: JobRunner | None = None,
    sound: SoundPlayer | None = None,
    watch_devices: bool = True,
    chip: ChipStation | None = None,
    chip_runner: JobRunner | None = None,
) -> DeskWindow:
    """The desk window with its workers (not started: call ``window.start()``).

    ``camera`` makes the camera (called again after a failure, so an unplugged camera
    is picked up when it is back); ``readers`` are serial or fake document readers;
    ``runner`` defaults to a new :class:`StoreWorker`, stopped with the window;
    ``sound`` defaults to ``ctx.devices.sound`` with the system bell; ``chip`` is the
    chip reader (None: none configured), read on ``chip_runner`` (default: a worker of
    its own, never the store's nor the GUI thread).
    """
    store_worker: StoreWorker | None = None
    if runner is None:
        store_worker = StoreWorker()
        runner = store_worker
    controller = DeskController(ctx, session, runner, authorise=authorise)
    if sound is None:
        app = QApplication.instance()
        beep = QApplication.beep if isinstance(app, QApplication) else None
        sound = ctx.devices.sound(beep)
    window = DeskWindow(
        ctx,
        session,
        controller,
        demo=ctx.demo if demo is None else demo,
        sound=sound,
        runner=runner,
        authorise=authorise,
    )
    controller.setParent(window)
    window.menus = attach_desk_menus(window, ctx)
    documents = ctx.documents
    window.help = HelpMenu(
        window, runner, documents.regulation_text, print_regulation=documents.print_regulation
    )
    if window.menus is not None:
        window.audit = attach_audit_menu(window, ctx, runner)
    window.apply_operator()
    if store_worker is not None:
        window.adopt_worker(store_worker)  # stopped last: adopted first
    if watch_devices:
        printing = ctx.card_printing

        def printer() -> tuple[str, str]:
            status = printing.preflight_status()
            ready = status is DeviceStatus.READY
            return status.value, "" if ready else printer_refusal_code(status)

        probes = {"printer": printer}
        if chip is not None:
            station = chip

            def chip_reader() -> tuple[str, str]:
                return station.preflight().value, station.trust_warning()

            probes["chip"] = chip_reader
        watch = DeviceWatch(probes)
        watch.status_changed.connect(controller.report_device)
        window.adopt_worker(watch)
    if chip is not None:
        if chip_runner is None:
            chip_worker = StoreWorker()
            window.adopt_worker(chip_worker)
            chip_runner = chip_worker
        window.connect_chip(DeskChip(chip, chip_runner, ctx.clock, parent=window))
    if camera is not None:
        cutter = ctx.devices.portrait() if ctx.devices.portrait is not None else None
        window.connect_camera(CameraWorker(camera, ctx.devices.live_reader(), portrait=cutter))
    else:
        window.status.set_absent("camera")
    for reader in readers:
        window.connect_reader(ReaderWorker(reader))
    return window
