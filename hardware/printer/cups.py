"""CUPS adapter through the command-line tools ``lp``, ``lpstat``, ``cancel``
(and ``ipptool`` for the exact job state when it is installed).

Why not pycups: it is GPL. The command-line tools are always there when CUPS is, and
their ``LC_ALL=C`` output is stable enough to parse. Why parse text: ``lpstat -r``
exits 0 even when the scheduler is down, and ``lpstat -p`` reports paused queues with
exit status 0 too.

The PDF goes to ``lp`` on standard input: no temporary file of ours is ever written.
CUPS keeps its own spool copy until the job finishes (``PreserveJobFiles`` in
cupsd.conf decides how long after; set it to ``No`` on counter PCs).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from admission.devices import (
    DeviceErrorCode,
    DeviceStatus,
    JobResult,
    JobState,
    PageSize,
    PrinterInfo,
    PrinterState,
)
from admission.errors import DeviceError

__all__ = ["CupsPrinter", "list_printers", "scheduler_running"]

log = logging.getLogger(__name__)

COMMAND_TIMEOUT = 15.0
_C_LOCALE = {"LC_ALL": "C", "LANG": "C", "LANGUAGE": "C"}  # parseable, English output
_REQUEST_ID = re.compile(r"request id is (\S+)-(\d+)")
_JOB_STATE_TEST = Path(__file__).with_name("job-state.test")
_MEDIA_EMPTY = ("media-empty", "media-needed", "input-tray-missing")
_MEDIA_ERROR = (
    "media-jam",
    "door-open",
    "cover-open",
    "toner-empty",
    "marker-supply-empty",
    "offline",
)
_TITLE_OK = re.compile(r"[^A-Za-z0-9._-]+")


def _child_env() -> dict[str, str]:
    """The spooler's environment: the C locale for parseable answers, and none of the
    sign-in secrets a command line may have been given (ADMISSION_*PASSWORD, *_KEY)."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not (k.startswith("ADMISSION_") and ("PASSWORD" in k or k.endswith("_KEY")))
    }
    return {**kept, **_C_LOCALE}


def _run(
    args: Sequence[str], *, data: bytes | None = None, timeout: float = COMMAND_TIMEOUT
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(  # fixed tool names, no shell
            list(args),
            input=data,
            capture_output=True,
            env=_child_env(),
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise DeviceError(f"{args[0]} not found", code=DeviceErrorCode.CUPS_NOT_INSTALLED) from None
    except subprocess.TimeoutExpired:
        raise DeviceError(f"{args[0]} timed out", code=DeviceErrorCode.CUPS_TIMEOUT) from None


def _text(result: subprocess.CompletedProcess[bytes]) -> str:
    return (result.stdout + result.stderr).decode("utf-8", "replace")


def scheduler_running() -> bool:
    """True when cupsd answers. ``lpstat -r`` exits 0 either way: read its words."""
    try:
        out = _run(["lpstat", "-r"], timeout=5).stdout.decode("utf-8", "replace")
    except DeviceError:
        return False
    return "scheduler is running" in out and "not running" not in out


def list_printers() -> list[PrinterInfo]:
    """Every queue CUPS knows, with its description; empty when CUPS is down."""
    if not scheduler_running():
        return []
    out = _run(["lpstat", "-l", "-p"]).stdout.decode("utf-8", "replace")
    default = _run(["lpstat", "-d"]).stdout.decode("utf-8", "replace")
    match = re.search(r"system default destination: (\S+)", default)
    default_name = match.group(1) if match else ""
    printers: list[PrinterInfo] = []
    name = ""
    description = ""
    for line in out.splitlines():
        head = re.match(r"printer (\S+) ", line)
        if head:
            if name:
                printers.append(PrinterInfo(name, description, name == default_name))
            name, description = head.group(1), ""
        elif line.strip().startswith("Description:"):
            description = line.split(":", 1)[1].strip()
    if name:
        printers.append(PrinterInfo(name, description, name == default_name))
    return printers


def parse_printer_status(printer_text: str, accepting_text: str) -> PrinterState:
    """Map ``lpstat -l -p NAME`` and ``lpstat -a NAME`` output to a preflight answer."""
    lines = printer_text.splitlines()
    first = lines[0] if lines else ""
    alerts = ""
    for line in lines:
        if line.strip().startswith("Alerts:"):
            alerts = line.split(":", 1)[1].strip()
    if "not accepting" in accepting_text:
        return PrinterState(DeviceStatus.REJECTING, "queue is rejecting jobs")
    if " disabled " in f" {first} " or "paused" in alerts.split():
        return PrinterState(DeviceStatus.PAUSED, "queue is paused")
    if any(reason in alerts for reason in _MEDIA_EMPTY):
        return PrinterState(DeviceStatus.NO_MEDIA, alerts)
    if any(
        f"{reason}-error" in alerts or f"{reason}-report" in alerts or reason == alerts
        for reason in _MEDIA_ERROR
    ):
        return PrinterState(DeviceStatus.ERROR, alerts)
    if "now printing" in first:
        return PrinterState(DeviceStatus.BUSY, "printing another job")
    return PrinterState(DeviceStatus.READY)


class CupsPrinter:
    """One CUPS queue (``CupsCardPrinter`` in the style guide's naming)."""

    def __init__(
        self,
        name: str,
        *,
        poll: float = 0.05,
        sleep: Callable[[float], None] = time.sleep,
        use_ipptool: bool = True,
    ) -> None:
        if not name or not re.fullmatch(r"[^\s/#]{1,127}", name):
            raise DeviceError("bad printer name", code=DeviceErrorCode.PRINTER_BAD_NAME)
        self._name = name
        self._poll = poll
        self._sleep = sleep
        # ipptool (package cups-ipp-utils) tells completed from cancelled/aborted jobs;
        # without it lpstat is used and a cancelled job cannot be told from a printed one
        self._ipptool = shutil.which("ipptool") if use_ipptool else None

    @property
    def name(self) -> str:
        return self._name

    def preflight(self) -> PrinterState:
        if not scheduler_running():
            return PrinterState(DeviceStatus.NOT_FOUND, "CUPS scheduler is not running")
        printer = _run(["lpstat", "-l", "-p", self._name])
        if printer.returncode != 0 or not printer.stdout.startswith(b"printer "):
            return PrinterState(DeviceStatus.NOT_FOUND, "no such queue")
        accepting = _run(["lpstat", "-a", self._name])
        return parse_printer_status(_text(printer), _text(accepting))

    def submit(self, pdf: bytes, *, title: str, page: PageSize) -> str:
        """Spool ``pdf`` from memory at its exact page size; returns "QUEUE-ID".

        ``title`` goes into the CUPS job history: callers pass a card number, never a name.
        """
        safe_title = _TITLE_OK.sub("_", title)[:60] or "document"
        result = _run(
            [
                "lp",
                "-d",
                self._name,
                "-t",
                safe_title,
                "-n",
                "1",
                "-o",
                f"PageSize={page.cups_name}",
                "-o",
                "print-scaling=none",
            ],
            data=pdf,
        )
        text = _text(result)
        match = _REQUEST_ID.search(text)
        if result.returncode != 0 or match is None:
            code = DeviceErrorCode.PRINT_SUBMIT_FAILED
            if "not accepting" in text:
                code = DeviceErrorCode.PRINTER_REJECTING
            if "does not exist" in text or "nvalid destination" in text:
                code = DeviceErrorCode.PRINTER_NOT_FOUND
            raise DeviceError(f"lp refused the job (rc={result.returncode})", code=code)
        return f"{match.group(1)}-{match.group(2)}"

    def cancel(self, job_id: str) -> None:
        _run(["cancel", job_id])

    def follow(self, job_id: str, *, timeout: float = 60.0) -> JobResult:
        """Wait until the job leaves the queue. A job still pending at ``timeout``, or
        stopped because its queue stopped, is cancelled (so a card can never come out
        later, unrecorded, as a duplicate) and reported as not printed."""
        deadline = time.monotonic() + timeout
        delay = self._poll
        next_check = time.monotonic() + 0.5
        while True:
            state = self._job_state(job_id)
            if state == "completed":
                return JobResult(job_id, JobState.COMPLETED)
            if state in ("canceled", "aborted"):
                if self.preflight().status is DeviceStatus.NOT_FOUND:
                    return JobResult(job_id, JobState.VANISHED, "queue disappeared")
                return JobResult(job_id, JobState.FAILED, f"job {state}")
            if state == "missing":
                if self.preflight().status is DeviceStatus.NOT_FOUND:
                    return JobResult(job_id, JobState.VANISHED, "queue disappeared")
                return JobResult(job_id, JobState.FAILED, "job no longer known to CUPS")
            if state == "processing-stopped" or state == "pending-held":
                status = self.preflight().status
                if status is DeviceStatus.NOT_FOUND:
                    return JobResult(job_id, JobState.VANISHED, "queue disappeared")
                self.cancel(job_id)
                return JobResult(job_id, JobState.FAILED, f"queue stopped ({status})")
            if state == "pending" and time.monotonic() >= next_check:
                # a paused queue leaves the job "pending, none": ask the queue itself
                next_check = time.monotonic() + 1.0
                status = self.preflight().status
                if status is DeviceStatus.NOT_FOUND:
                    return JobResult(job_id, JobState.VANISHED, "queue disappeared")
                if status is DeviceStatus.PAUSED:
                    self.cancel(job_id)
                    return JobResult(job_id, JobState.FAILED, "queue paused")
            if time.monotonic() >= deadline:
                if self.preflight().status is DeviceStatus.NOT_FOUND:
                    return JobResult(job_id, JobState.VANISHED, "queue disappeared")
                self.cancel(job_id)
                return JobResult(job_id, JobState.TIMEOUT, "cancelled after timeout")
            self._sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _job_state(self, job_id: str) -> str:
        """IPP job-state name ("pending", "processing", "completed", "canceled", ...),
        "processing-stopped" / "pending-held" when the queue is stopped, or "missing"."""
        number = job_id.rsplit("-", 1)[-1]
        if self._ipptool and _JOB_STATE_TEST.exists():
            result = _run(
                [
                    self._ipptool,
                    "-c",
                    "-d",
                    f"job_id={number}",
                    "ipp://localhost/",
                    str(_JOB_STATE_TEST),
                ]
            )
            lines = result.stdout.decode("utf-8", "replace").splitlines()
            if result.returncode == 0 and len(lines) >= 2:
                state, _, reasons = lines[1].partition(",")
                if state == "processing" and "printer-stopped" in reasons:
                    return "processing-stopped"
                if state == "pending" and "printer-stopped" in reasons:
                    return "processing-stopped"
                if state in ("pending-held", "processing-stopped"):
                    return state
                return state or "missing"
            if "does not exist" in _text(result) or "not-found" in _text(result):
                return "missing"
        return self._job_state_lpstat(job_id)

    def _job_state_lpstat(self, job_id: str) -> str:
        """Fallback without ipptool: cannot tell cancelled from completed."""
        pending = _run(["lpstat", "-W", "not-completed", "-o", self._name])
        if pending.returncode != 0:
            return "missing"
        if _has_job(pending.stdout, job_id):
            if self.preflight().status is DeviceStatus.PAUSED:
                return "processing-stopped"
            return "pending"
        done = _run(["lpstat", "-W", "completed", "-o", self._name])
        return "completed" if _has_job(done.stdout, job_id) else "missing"


def _has_job(output: bytes, job_id: str) -> bool:
    return any(
        line.split(maxsplit=1)[:1] == [job_id]
        for line in output.decode("utf-8", "replace").splitlines()
    )
