"""``inspect search`` and ``inspect timeline``: the gaming inspector's queries at the
command line, in this process, on a real encrypted file (art. 20.4: confidential, open
to the inspectors, every query recorded)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from admission.records import AuditEntry
from tests.factories import dni
from tests.test_cli import ADMIN, KEY, cli, create_accounts, import_register, spanish_dni_mrz

INSPECTOR = ("ines", ["INSPECTOR"], "inspector-pass-1")
PURPOSE = "Expediente 12/2026 de la inspección"
AT = "2026-11-28T22:00:00+01:00"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Accounts (an administrator, a clerk, a director, an inspector), a register, and
    three admitted visitors: GARCIA LOPEZ (card 1), PEÑA NUÑEZ (manual, card 2) and
    PEÑALVER (card 3)."""
    create_accounts(tmp_path, monkeypatch)
    name, roles, password = INSPECTOR
    monkeypatch.setenv("ADMISSION_NEW_PASSWORD", password)
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    code, out = cli("account", "add", name, "--display-name", "Inés", "--role", *roles,
                    "--user", ADMIN[0], data_dir=tmp_path)  # fmt: skip
    assert code == 0, out
    monkeypatch.delenv("ADMISSION_NEW_PASSWORD")
    monkeypatch.setenv("ADMISSION_PASSWORD", "clerk-pass-1")
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text(f"# RIAJ casino scope\n{dni(11111111)}\n", encoding="utf-8")
    assert import_register(snapshot, tmp_path)[0] == 0
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(12345678), "--at", AT,
                    data_dir=tmp_path, clock_override=True)  # fmt: skip
    assert code == 0, out
    code, out = cli("admit", "--manual", "--doc-type", "DRIVING_LICENCE", "--issuer", "ESP",
                    "--number", dni(33333333), "--surname", "PEÑA NÚÑEZ", "--given-names",
                    "JOSÉ", "--birth-date", "1970-03-04", "--at", "2026-11-30T21:00:00+01:00",
                    data_dir=tmp_path, clock_override=True)  # fmt: skip
    assert code == 0, out
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(44444444, surname="PENALVER"),
                    "--at", "2026-12-01T21:00:00+01:00",
                    data_dir=tmp_path, clock_override=True)  # fmt: skip
    assert code == 0, out
    monkeypatch.setenv("ADMISSION_PASSWORD", INSPECTOR[2])
    return tmp_path


def inspect(data: Path, *args: str, who: str = INSPECTOR[0]) -> tuple[int, Any]:
    return cli("inspect", *args, "--as", who, "--purpose", PURPOSE, data_dir=data)


def surnames(out: Any) -> list[str]:
    return [v["surname"] for v in out["visitors"]]


def audit_entries(data: Path) -> list[AuditEntry]:
    from main import build_context, build_tools

    saved = os.environ.get("ADMISSION_DB_KEY")
    os.environ["ADMISSION_DB_KEY"] = KEY
    try:
        ctx = build_context(build_tools(data))
        try:
            return ctx.store.audit_entries(0, 10_000)
        finally:
            ctx.close()
    finally:
        if saved is None:
            os.environ.pop("ADMISSION_DB_KEY", None)
        else:
            os.environ["ADMISSION_DB_KEY"] = saved


def test_an_inspector_finds_by_partial_accent_insensitive_name(data: Path) -> None:
    code, out = inspect(data, "search", "--name", "peña")
    assert code == 0, out
    assert surnames(out) == ["PEÑA NÚÑEZ", "PENALVER"]  # by folded name
    code, out = inspect(data, "search", "--name", "NUNEZ jo")
    assert (code, surnames(out)) == (0, ["PEÑA NÚÑEZ"])


def test_an_inspector_finds_by_id_card_file_and_date_range(data: Path) -> None:
    code, out = inspect(data, "search", "--id", dni(12345678).lower())
    assert (code, surnames(out)) == (0, ["GARCIA LOPEZ"])
    code, out = inspect(data, "search", "--card", "2")
    assert (code, surnames(out)) == (0, ["PEÑA NÚÑEZ"])
    code, out = inspect(data, "search", "--from", "2026-11-30", "--to", "2026-12-01")
    assert code == 0 and sorted(surnames(out)) == ["PENALVER", "PEÑA NÚÑEZ"]
    code, out = inspect(data, "search", "--from", "2026-11-28", "--to", "2026-11-28")
    assert (code, surnames(out)) == (0, ["GARCIA LOPEZ"])
    file_number = out["visitors"][0]["file_number"]
    code, out = inspect(data, "search", "--file", str(file_number))
    assert (code, surnames(out)) == (0, ["GARCIA LOPEZ"])


def test_a_timeline_shows_the_visits_with_verdicts_and_cards(data: Path) -> None:
    code, out = inspect(data, "timeline", "1")
    assert code == 0, out
    assert out["visitor"]["surname"] == "GARCIA LOPEZ"
    [visit] = out["visits"]
    assert visit["verdict"] == "ADMIT" and visit["reasons"] == []
    assert visit["card_number"] == 1 and visit["card"]["number"] == 1
    code, out = inspect(data, "timeline", "99")
    assert (code, out["error"]) == (1, "INSPECT_FILE_UNKNOWN")


def test_every_query_is_audited_with_purpose_and_name_and_no_clear_number(data: Path) -> None:
    assert inspect(data, "search", "--id", dni(12345678))[0] == 0
    assert inspect(data, "search", "--name", "peña")[0] == 0
    assert inspect(data, "timeline", "1")[0] == 0
    entries = [e for e in audit_entries(data) if e.action.startswith("INSPECT_")]
    assert [e.action for e in entries] == ["INSPECT_SEARCH", "INSPECT_SEARCH", "INSPECT_TIMELINE"]
    for entry in entries:
        assert entry.actor == "ines" and entry.details["purpose"] == PURPOSE
    text = repr(entries)
    assert "12345678" not in text and dni(12345678) not in text
    assert "PEÑA" not in text.upper() and "PENA" not in text.upper()
    assert entries[0].details["id"].startswith("hmac:")


def test_a_clerk_is_refused_and_the_refusal_reads_nothing(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", "clerk-pass-1")
    code, out = inspect(data, "search", "--name", "garcia", who="ana")
    assert (code, out["error"]) == (1, "INSPECTOR_ROLE_REQUIRED")
    assert "visitors" not in out
    code, out = inspect(data, "timeline", "1", who="ana")
    assert (code, out["error"]) == (1, "INSPECTOR_ROLE_REQUIRED")


def test_a_wrong_password_is_refused(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", "not-the-password")
    code, out = inspect(data, "search", "--name", "garcia")
    assert (code, out["error"]) == (1, "BAD_CREDENTIALS")


@pytest.mark.parametrize(
    ("args", "exit_code", "answer"),
    [
        (["--name", "%"], 1, "INSPECT_QUERY_INVALID"),  # one character
        (["--name", "%%"], 0, []),
        (["--name", "'; DROP TABLE visits; --"], 0, []),
        (["--observation", "'; DROP TABLE visits; --"], 0, []),
        (["--name", "x" * 10_000], 1, "QUERY_TOO_LONG"),
        (["--observation", "x" * 10_000], 1, "QUERY_TOO_LONG"),
        (["--id", "' OR 1=1 --"], 1, "INSPECT_QUERY_INVALID"),
        (["--id", "%"], 1, "INSPECT_QUERY_INVALID"),
        (["--card", "1 OR 1=1"], 2, "BAD_NUMBER"),
        (["--from", "2026-13-01"], 2, "BAD_DATE"),
        (["--from", "2026-12-02", "--to", "2026-12-01"], 1, "INSPECT_DATE_RANGE"),
        ([], 2, "INSPECT_NO_CRITERIA"),
    ],
)
def test_hostile_input_answers_cleanly(
    data: Path, args: list[str], exit_code: int, answer: object
) -> None:
    code, out = inspect(data, "search", *args)
    assert code == exit_code, out
    if isinstance(answer, str):
        assert out["error"] == answer and out["message"] and out["message_en"]
    else:
        assert out["visitors"] == answer
    code, out = inspect(data, "search", "--name", "garcia")  # the file is whole
    assert (code, surnames(out)) == (0, ["GARCIA LOPEZ"])


@pytest.mark.parametrize("purpose", ["", "ab", "x" * 10_000])
def test_a_missing_or_bad_purpose_is_refused(data: Path, purpose: str) -> None:
    code, out = cli("inspect", "search", "--name", "garcia", "--as", "ines",
                    "--purpose", purpose, data_dir=data)  # fmt: skip
    assert (code, out["error"]) == (1, "INSPECT_PURPOSE_INVALID")  # type: ignore[index]
