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
from datetime import timedelta
from pathlib import Path
from typing import Any

from admission.accounts import AccountService, Role
from admission.errors import StoreError
from admission.ports import AuditTrail
from admission.settings import Settings
from admission.settings_record import SettingsLedger, record_settings, settings_digests
from admission.vouchers.model import NewVoucher, VoucherBook
from tests.db.factories import T0

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


def tamper_voucher(n: int) -> NewVoucher:
    """Voucher ``n`` of the history both stores' cases run on."""
    return NewVoucher(T0, "desk-1", "op-7", f"Titular {n}", "DNI", f"V{n:07d}", "STANDARD", 500)


def record_vouchers(book: VoucherBook) -> None:
    """The vouchers of that history (the cases name them by number): three issued, the
    first exchanged for card 1, the second cancelled, the third left open."""
    for n in (1, 2, 3):
        book.issue_voucher(tamper_voucher(n))
    book.exchange_voucher(1, 1, T0 + timedelta(minutes=5))
    book.cancel_voucher(2, "refused at the counter", T0 + timedelta(minutes=6))


PASSWORD = "correct horse battery"  # the history's accounts (invented)


def record_accounts_and_settings(
    accounts: AccountService, store: SettingsLedger, settings: Settings
) -> None:
    """The rest of that history: an administrator who creates a clerk's account (the
    cases delete ``clerk``), and the casino's name saved on the settings screen (the
    cases edit it in settings.json)."""
    accounts.create_account("admin", "Ana", PASSWORD, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", PASSWORD)
    accounts.create_account("clerk", "Carla", PASSWORD, [Role.CLERK], actor=admin)
    settings.set("casino.name", "Casino de Pruebas")
    record_settings(store, settings, "admin", T0, ["casino.name"])


def verify_answer(trail: AuditTrail, settings: Settings) -> tuple[str, str | None, bool]:
    """(code, row named, refused with an error) of ``audit verify`` on either store, with
    ``settings`` as the desk reads settings.json."""
    try:
        check = trail.verify(settings=settings_digests(settings))
    except StoreError as exc:
        return str(exc.code), None, True
    return str(check.problem), check.row, False


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
