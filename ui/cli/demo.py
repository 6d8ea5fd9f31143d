"""``demo``: the whole flow on invented people, for a first look at the product.

Seeds a demo visitor file (its own folder, public demo passphrase): a RIAJ
snapshot listing some invented people, an internal ban and a staff member; then
admits a queue of invented visitors through the real AdmissionDesk, the real
encrypted file and the real card renderer. The first visitors' documents are laid
under a fake camera: rendered in OCR-B and degraded as a webcam would see them
(``hardware.generators.synthetic``), frame after frame, and read by the real live MRZ reader;
the others hand their MRZ over as a document reader would. Nothing here is a real
person, and no frame is written to disk.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta

from admission.documents import document_from_mrz
from admission.generators.demo_people import DemoPerson, demo_people
from admission.mrz.parse import parse_mrz
from admission.ports import madrid_date
from admission.records import StaffMember, StaffRole
from hardware.mrz.watch import watch
from ui.cli.result import Command, CommandResult, ExitCode
from ui.context import AppContext, Devices

CAMERA_VISITORS = 3  # the first visitors of the queue are read by the (fake) camera
CAMERA_FRAMES = 8  # frames each of them is held under it, at most
BANNER = "*** DEMO — datos inventados / invented data — no usar con visitantes reales ***"
SEED = 2026


def _seed(ctx: AppContext, people: list[DemoPerson]) -> None:
    now = ctx.clock.now()
    listed = [p.dni for p in people[3:4] if p.dni]
    ctx.replica.import_lines(
        [b"# demo RIAJ snapshot (invented)\n", *(f"{n}\n".encode() for n in listed)]
    )
    doc = document_from_mrz(parse_mrz(people[5].mrz(madrid_date(now)), today=madrid_date(now)))
    if not ctx.store.active_bans(doc.identity, now):
        ctx.desk.add_ban(
            doc.identity,
            "Demo: conducta inadecuada en sala",
            "Director (demo)",
            expires_at=now + timedelta(days=90),
        )
    staff = document_from_mrz(parse_mrz(people[7].mrz(madrid_date(now)), today=madrid_date(now)))
    if ctx.store.staff_member(staff.identity) is None:
        ctx.store.add_staff(
            StaffMember(staff.identity, "Crupier (demo)", StaffRole.STAFF), "Director (demo)", now
        )


def through_camera(devices: Devices, lines: list[str], index: int) -> tuple[list[str], str]:
    """The document held under a fake camera and read live; when the reader gives up,
    the clerk types the MRZ (as at a real desk)."""
    camera = devices.demo_camera(lines, index)
    got = watch(camera, devices.live_reader(), CAMERA_FRAMES)
    if got.read is None:
        return lines, f"typed by the clerk (camera: {got.reason})"
    return list(got.read.lines), f"camera, live ({got.frames} frames)"


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    print(BANNER, file=sys.stderr)
    today = ctx.tools.today()
    people = demo_people(12, seed=SEED, today=today, minors=0.0)
    minor = demo_people(1, seed=SEED + 1, today=today, minors=1.0)
    queue = [*people, *minor]
    _seed(ctx, people)
    printing = ctx.card_printing  # the demo's card printer is a PDF folder
    rows = []
    for k, person in enumerate(queue):
        lines, read_by = person.mrz(today), "document reader"
        if k < CAMERA_VISITORS:
            lines, read_by = through_camera(ctx.devices, lines, k)
        result = parse_mrz(lines, today=today)
        outcome = ctx.desk.admit(document_from_mrz(result), operator="demo")
        pdf = None
        if outcome.card is not None:
            printed = printing.print_card(printing.view_for(outcome.card.number), actor="demo")
            pdf = ctx.card_files.folder / printed.job_id if printed.printed else None
        rows.append(
            {
                "visitor": f"{person.given_names} {person.surname}",
                "read_by": read_by,
                "verdict": outcome.verdict.outcome.value,
                "reasons": list(outcome.verdict.codes),
                "file_number": outcome.recorded.file_number,
                "card_number": outcome.recorded.card_number,
                "card_pdf": str(pdf) if pdf else None,
            }
        )
    return ExitCode.OK, {
        "demo": True,
        "banner": BANNER,
        "data_dir": str(ctx.data_dir),
        "admissions": rows,
        "next": [
            "python main.py --demo visitor show 1",
            "python main.py --demo audit verify",
            "python main.py --demo registry status",
            f"python main.py --demo verify-card {ctx.card_code(1)}",
            f"python main.py --demo verify-card {ctx.signed_card_code(1)}",
            # the phone page (art. 22.4): user sala, PIN 2468 (ui/demo_accounts.DEMO_FLOOR)
            "python main.py --demo floor serve --listen 127.0.0.1:8443",
        ],
    }


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    return None


COMMAND = Command[AppContext]("demo", "demo: invented visitors, fake devices", _arguments, run)
