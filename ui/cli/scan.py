"""``main.py scan``: a document reader (serial, or a replayed recording) through the
scan intake, one JSON line per scan (issue 4)."""

from __future__ import annotations

import argparse
from typing import Any

Result = tuple[int, dict[str, Any] | None]


def scan_command(args: argparse.Namespace, app: Any) -> Result:
    """Stream reader events through the scan intake; Ctrl+C stops listening."""
    import json
    import threading

    from admission.intake import ScanIntake
    from hardware.scanner import ReaderStatusChanged
    from hardware.scanner.fake import FakeDocumentReader, Pause, load_recording
    from hardware.scanner.serial_reader import SerialDocumentReader

    if args.replay:
        try:
            script = [step for path in args.replay for step in (load_recording(path), Pause(0.0))]
        except (OSError, ValueError):
            return 2, {"error": "BAD_RECORDING", "message": "not a [[char, t], ...] file"}
        reader: Any = FakeDocumentReader(script, sleep=lambda _s: None)
    else:
        reader = SerialDocumentReader(args.serial, baudrate=args.baud)
    intake = ScanIntake(
        app.desk,
        store=app.store,
        clock=app.clock,
        card_key=app.store.secret("card_code"),
        casino_id=app.settings["casino.id"],
        actor=args.operator,
    )
    stop = threading.Event()
    try:
        for event in reader.listen(stop):
            if isinstance(event, ReaderStatusChanged):
                line: dict[str, Any] = {
                    "event": "READER",
                    "status": event.status.value,
                    "reconnected": event.reconnected,
                }
            elif type(event).__name__ == "Passthrough":
                continue
            else:
                line = _intake_json(intake.handle(event), app, args)
            print(json.dumps(line, ensure_ascii=False), flush=True)
            app.purge_if_due()  # a reader left listening overnight still purges daily
    except KeyboardInterrupt:
        stop.set()
    return 0, None


def _intake_json(result: Any, app: Any, args: argparse.Namespace) -> dict[str, Any]:
    line: dict[str, Any] = {"event": result.kind.value, "code": result.code}
    if result.errors:
        line["errors"] = list(result.errors)
    if result.card is not None:
        line.update(result.card.to_json())
        line["code"] = result.code
    if result.evaluation is not None:
        evaluation = result.evaluation
        line["reasons"] = list(evaluation.verdict.codes)
        line["registry"] = evaluation.registry.status.value
        if args.admit:
            admitted = app.desk.record(evaluation, operator=args.operator)
            line["file_number"] = admitted.recorded.file_number
            line["card_number"] = admitted.recorded.card_number
    return line
