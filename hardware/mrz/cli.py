"""``main.py read-document --json IMAGE [IMAGE...]``: read the MRZ of still images.

Per image, one JSON object: ``file``, ``mrz_lines`` (exactly as printed, ``<`` included,
even when a check digit is wrong on the document itself), every ``parse-mrz`` field,
``verified`` (all check digits pass), ``reason`` (a code when there is no MRZ or the file
is not a readable image, else null) and ``ms``. One image -> one object; several -> a
list. Exit code 0 when every image gave a valid MRZ, 1 otherwise (no MRZ, unreadable
file, or check digits failing as printed), 2 on a usage error.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import date

from admission.mrz import MrzResult, parse_mrz
from hardware.mrz.images import ImageError, load_image
from hardware.mrz.reader import MrzRead, MrzReader

USAGE_ERROR = "USAGE_NO_IMAGES"


def _empty_fields() -> dict[str, object]:
    return MrzResult(valid=False, format=None, lines=()).to_json()


def read_one(reader: MrzReader, path: str, today: date) -> dict[str, object]:
    start = time.perf_counter()
    read: MrzRead | None = None
    reason: str | None = None
    try:
        image = load_image(path)
    except ImageError as err:
        reason = err.code
    else:
        read = reader.read_array(image)
        reason = read.reason
    out: dict[str, object] = {"file": path}
    if read is not None and read.lines:
        lines = list(read.lines)
        out["mrz_lines"] = lines
        out.update(parse_mrz(lines, today=today).to_json())
        out["verified"] = read.verified
        out["failed_checks"] = list(read.failed_checks)
    else:
        out["mrz_lines"] = []
        out.update(_empty_fields())
        out["verified"] = False
        out["failed_checks"] = []
    out["reason"] = reason
    out["ms"] = round((time.perf_counter() - start) * 1000.0, 1)
    return out


def read_document_command(paths: list[str], *, as_json: bool, today: date) -> tuple[int, str]:
    """Read every image in ``paths``; return (exit code, text to print)."""
    if not paths:
        return 2, json.dumps({"error": USAGE_ERROR})
    reader = MrzReader()
    results = [read_one(reader, p, today) for p in paths]
    code = 0 if all(r["mrz_lines"] and r["valid"] for r in results) else 1
    payload: object = results[0] if len(results) == 1 else results
    if as_json:
        return code, json.dumps(payload, ensure_ascii=False, indent=2)
    return code, _text(results)


def _text(results: Sequence[dict[str, object]]) -> str:
    out = []
    for r in results:
        lines = r["mrz_lines"]
        if isinstance(lines, list) and lines:
            out.append(f"{r['file']}: " + " / ".join(str(x) for x in lines) +
                       ("" if r["valid"] else f"  (invalid: {', '.join(map(str, r['errors']))})"))  # type: ignore[arg-type]
        else:
            out.append(f"{r['file']}: no MRZ ({r['reason']})")
    return "\n".join(out)
