"""Where the real CUPS test path stands: scheduler, CardPDF queue, cups-pdf output dir."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

from hardware.printer.cups import scheduler_running

CUPS_PDF_CONF = Path("/etc/cups/cups-pdf.conf")
CARD_QUEUE = "CardPDF"


def cups_pdf_out() -> Path | None:
    """The directory cups-pdf writes to, when it is a fixed one (start-cups.sh sets it)."""
    env = os.environ.get("CUPS_PDF_OUT")
    if env:
        return Path(env)
    try:
        text = CUPS_PDF_CONF.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r"^Out\s+(\S+)\s*$", text, re.MULTILINE)
    if match is None or "$" in match.group(1):
        return None
    return Path(match.group(1))


def skip_reason(queue: str = CARD_QUEUE) -> str:
    """ "" when the real print path can be tested, else why not."""
    if shutil.which("lp") is None or shutil.which("lpstat") is None:
        return "CUPS client tools (lp, lpstat) are not installed"
    if not scheduler_running():
        return "cupsd is not running (run scripts/start-cups.sh as root)"
    from hardware.printer.cups import list_printers

    if queue not in {p.name for p in list_printers()}:
        return f"CUPS queue {queue} missing (run scripts/start-cups.sh as root)"
    out = cups_pdf_out()
    if out is None or not out.is_dir():
        return "cups-pdf output directory is not fixed (run scripts/start-cups.sh as root)"
    return ""


def collect_output(out_dir: Path, title: str, dest: Path, timeout: float = 30.0) -> Path:
    """Wait for the PDF cups-pdf writes for job ``title``, move it into ``dest`` (the
    test's temp dir) so nothing stays in the shared output directory."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for found in sorted(out_dir.glob(f"{title}*.pdf")):
            size = found.stat().st_size
            time.sleep(0.05)  # cups-pdf writes, then chmods: wait for a stable size
            if size and found.stat().st_size == size:
                target = dest / found.name
                shutil.move(str(found), target)
                return target
        time.sleep(0.05)
    raise TimeoutError(f"cups-pdf produced no file for {title} within {timeout} s")
