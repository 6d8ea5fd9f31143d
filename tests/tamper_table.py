"""The tamper table: every rewrite of the record the tests make, on which store, and the
code ``audit verify`` answers (art. 20.4: inspectors trust ``audit verify``).

The cases live beside the tests that perform them (``tests/db/test_tamper.py`` for the
SQLCipher file, ``tests/pg/test_tamper_pg.py`` for the server); ``docs/tamper-table.md``
is generated from those same cases and ``tests/test_tamper_table.py`` fails when it
differs, so the table cannot drift from what is tested:

    .venv/bin/python -m tests.tamper_table --write
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[1] / "docs" / "tamper-table.md"


@dataclass(frozen=True)
class Tamper:
    """One rewrite: ``act(world)`` performs it with the file key (SQLCipher) or as the
    server's superuser (PostgreSQL); ``audit verify`` must then answer ``code``."""

    name: str
    what: str  # who does what, for the table
    code: str
    act: Callable[[Any], None]
    row: str | None = None  # the row verify names, when it names one
    error: bool = False  # verify refuses with the code instead of answering a verdict


HEADER = """# Tamper table

Every rewrite of the visitor file the tests perform, and what `audit verify` answers
(art. 20.4: the file is a legal record and inspectors trust `audit verify`).

Generated from the cases in `tests/db/test_tamper.py` (SQLCipher file, tampered with
the file key and without the audit key) and `tests/pg/test_tamper_pg.py` (PostgreSQL,
tampered as the server's superuser, who holds neither the data keys nor the audit
key); `tests/test_tamper_table.py` fails when this file differs from them. Regenerate
with `.venv/bin/python -m tests.tamper_table --write`.

"(error)": the command refuses with that code instead of answering a verdict; a row in
brackets is the row the answer names.

Not caught by the chain alone (a head printed outside the file, `audit verify
--anchor`, catches them): the newest entries removed together with the audit counter
put back; a rewrite made by someone holding the audit key; on the SQLCipher file, a
file whose marker, file id and key file are all removed, which then looks like a file
from before the keyed chain.

| store | tamper | `audit verify` answers |
|---|---|---|
"""


def _cases() -> list[tuple[str, Sequence[Tamper]]]:
    from tests.db.test_tamper import CASES as FILE_CASES
    from tests.pg.test_tamper_pg import CASES as SERVER_CASES

    return [("SQLCipher file", FILE_CASES), ("PostgreSQL", SERVER_CASES)]


def render(stores: Sequence[tuple[str, Sequence[Tamper]]]) -> str:
    lines = [HEADER.rstrip("\n")]
    for store, cases in stores:
        for case in cases:
            code = f"`{case.code}`" + (f" ({case.row})" if case.row else "")
            code += " (error)" if case.error else ""
            lines.append(f"| {store} | {case.what} | {code} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {DOC.name}")
    args = parser.parse_args(argv)
    text = render(_cases())
    if args.write:
        DOC.write_text(text, "utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
