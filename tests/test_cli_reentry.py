"""``admit`` at the command line, in this process, on a real encrypted file: a person who
holds a valid card is a re-entry on it (art. 22) - ``"verdict": "ALREADY_ADMITTED"``,
exit 0, the card held, its validity and the reprint hint, no number taken - and a
register that cannot be checked is ``NOT_ADMITTED`` (art. 20.1-2: fail closed, exit 1),
neither of them a refusal in ``report figures``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.ports import madrid_date
from tests.test_cli import cli, create_accounts, import_register, spanish_dni_mrz
from tests.test_cli import quick_sign_in as quick_sign_in  # autouse here too
from tests.test_cli_reports import as_director

AT = "2026-11-28T22:00:00+01:00"
LATER = "2026-11-28T23:30:00+01:00"
# three days after the register copy was imported (now): past its age (art. 20.2)
STALE = datetime.now(UTC) + timedelta(days=3)


def admit(data: Path, number: int, at: str) -> tuple[int, Any]:
    return cli(
        "admit", "--mrz", *spanish_dni_mrz(number), "--at", at, "--no-pdf",
        data_dir=data, clock_override=True,
    )  # fmt: skip


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    create_accounts(tmp_path, monkeypatch)  # the clerk signed in, the director's password
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("# RIAJ casino scope\n00000000T\n", encoding="utf-8")
    code, out = import_register(snapshot, tmp_path)
    assert code == 0, out
    return tmp_path


def test_a_holder_of_a_valid_card_is_already_admitted_with_exit_0(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, first = admit(data, 12345678, AT)
    assert code == 0 and first["verdict"] == "ADMIT" and first["card_number"] == 1
    code, again = admit(data, 12345678, LATER)
    assert code == 0, again  # a re-entry, not a refusal
    assert again["verdict"] == "ALREADY_ADMITTED" and again["card_number"] is None
    assert (again["existing_card"], again["valid_until"]) == (1, "2026-11-28")
    hint = again["hint"]
    assert hint["code"] == "REPRINT_POSSIBLE" and hint["command"].startswith("print-card 1")
    assert hint["message"] and hint["message_en"] and hint["message"] != hint["message_en"]
    code, other = admit(data, 22222222, LATER)
    assert code == 0 and other["card_number"] == 2  # no number was taken by the re-entry
    code, figures = cli(
        "report",
        "figures",
        "2026-11-28",
        "2026-11-28",
        "--as",
        as_director(monkeypatch),
        data_dir=data,
    )
    assert code == 0, figures
    assert (figures["admissions"], figures["refused"]) == (2, 0)
    assert figures["reentries"] == 1 and figures["visitors"] == 2


def test_a_register_that_cannot_be_checked_is_not_admitted_not_refused(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = admit(data, 33333333, STALE.isoformat())
    assert code == 1 and out["verdict"] == "NOT_ADMITTED", out
    assert out["reasons"] == ["REGISTRY_UNVERIFIABLE"] and out["card_number"] is None
    assert out["registry"]["status"] == "UNVERIFIABLE"
    day = madrid_date(STALE).isoformat()
    code, figures = cli(
        "report", "figures", day, day, "--as", as_director(monkeypatch), data_dir=data
    )
    assert code == 0, figures
    assert (figures["refused"], figures["not_admitted"]) == (0, 1)
    assert figures["not_admitted_reasons"] == {"REGISTRY_UNVERIFIABLE": 1}
