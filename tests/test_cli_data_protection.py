"""``rectify``, ``retention``, ``user add`` and ``audit verify``'s first broken entry at
the command line, in this process, on a real encrypted file (art. 20.4; GDPR art. 16)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.factories import dni
from tests.test_cli import (
    ADMIN,
    CLERK,
    DIRECTOR,
    KEY,
    cli,
    create_accounts,
    import_register,
    spanish_dni_mrz,
)
from ui.context import AppContext

REASON = "Solicitud de rectificación del interesado, 1/12/2026"
INSPECTOR = ("ines", "inspector-pass-1")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Accounts (an administrator, a clerk, a director), a register, and two admitted
    visitors: GARCIA LOPEZ (file 1) and PEÑA NÚÑEZ (file 2, typed in), with an
    observation on file 1."""
    create_accounts(tmp_path, monkeypatch)
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text(f"# RIAJ casino scope\n{dni(11111111)}\n", encoding="utf-8")
    assert import_register(snapshot, tmp_path)[0] == 0
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(12345678), "--at",
                    "2026-11-28T22:00:00+01:00", data_dir=tmp_path,
                    clock_override=True)  # fmt: skip
    assert code == 0, out
    code, out = cli("admit", "--manual", "--doc-type", "DRIVING_LICENCE", "--issuer", "ESP",
                    "--number", dni(33333333), "--surname", "PEÑA NÚÑEZ", "--given-names",
                    "JOSÉ", "--birth-date", "1970-03-04", "--at", "2026-11-30T21:00:00+01:00",
                    data_dir=tmp_path, clock_override=True)  # fmt: skip
    assert code == 0, out
    with opened(tmp_path) as ctx:
        ctx.store.add_observation(1, "Discutió con el crupier", "ana", ctx.clock.now())
    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    return tmp_path


@contextmanager
def opened(data: Path) -> Iterator[AppContext]:
    from main import build_context, build_tools

    saved = os.environ.get("ADMISSION_DB_KEY")
    os.environ["ADMISSION_DB_KEY"] = KEY
    try:
        ctx = build_context(build_tools(data))
        try:
            yield ctx
        finally:
            ctx.close()
    finally:
        if saved is None:
            os.environ.pop("ADMISSION_DB_KEY", None)
        else:
            os.environ["ADMISSION_DB_KEY"] = saved


def rectify_name(data: Path, *extra: str, who: str = DIRECTOR[0]) -> tuple[int, Any]:
    return cli("rectify", "name", *extra, "--reason", REASON, "--as", who, data_dir=data)


def search(data: Path, name: str) -> list[int]:
    code, out = cli("inspect", "search", "--name", name, "--as", DIRECTOR[0], "--purpose",
                    "Comprobación tras la rectificación", data_dir=data)  # fmt: skip
    assert code == 0, out
    return [v["file_number"] for v in out["visitors"]]  # type: ignore[index]


def verify(data: Path) -> tuple[int, Any]:
    return cli("audit", "verify", data_dir=data)


def test_rectify_a_name_then_search_finds_the_new_name_and_not_the_old(data: Path) -> None:
    assert search(data, "garcia lopez") == [1]
    code, out = rectify_name(data, "1", "--surname", "garcía lópez", "--given-names", "ana maría")
    assert code == 0, out
    assert (out["visitor"]["surname"], out["visitor"]["given_names"]) == (
        "GARCÍA LÓPEZ",
        "ANA MARÍA",
    )
    assert search(data, "ana maria") == [1]
    assert search(data, "garcia lopez ana") == [1]
    code, out = verify(data)
    assert (code, out["ok"]) == (0, True), out
    code, out = rectify_name(data, "1", "--surname", "MARTIN", "--given-names", "ANA MARÍA")
    assert code == 0, out
    assert search(data, "garcia") == [] and search(data, "martin ana") == [1]
    assert verify(data)[0] == 0


def test_rectify_is_audited_with_reason_role_and_no_clear_old_value(data: Path) -> None:
    assert rectify_name(data, "2", "--surname", "PEÑA NÚÑEZ", "--given-names", "JOSÉ LUIS")[0] == 0
    with opened(data) as ctx:
        [entry] = [e for e in ctx.store.audit_entries(0, 10_000) if e.action == "RECTIFIED"]
    assert (entry.actor, entry.subject) == ("dora", "file:2")
    assert entry.details["reason"] == REASON and entry.details["role"] == "DIRECTOR"
    assert entry.details["fields"] == "given_names"
    assert entry.details["old_given_names"].startswith("hmac:")
    assert "JOSÉ" not in repr(entry) and "JOSE" not in repr(entry)


def test_rectify_an_observation_and_verify(data: Path) -> None:
    code, shown = cli("visitor", "show", "1", "--user", "dora", data_dir=data)
    assert code == 0, shown
    [listed] = shown["observations"]  # type: ignore[index]
    with opened(data) as ctx:
        [note] = ctx.store.observations(1)
    assert listed["observation_id"] == note.observation_id >= 1  # the id to name
    code, out = cli("rectify", "observation", "1", str(note.observation_id), "--text",
                    "Discutió con otro jugador", "--reason", REASON, "--as", "dora",
                    data_dir=data)  # fmt: skip
    assert code == 0, out
    assert out["observation"]["text"] == "Discutió con otro jugador"  # type: ignore[index]
    with opened(data) as ctx:
        assert [o.text for o in ctx.store.observations(1)] == ["Discutió con otro jugador"]
    assert verify(data)[0] == 0
    code, out = cli("rectify", "observation", "2", str(note.observation_id), "--text", "x",
                    "--reason", REASON, "--as", "dora", data_dir=data)  # fmt: skip
    assert (code, out["error"]) == (1, "RECTIFY_NOT_FOUND")  # type: ignore[index]


def test_a_clerk_or_an_administrator_may_not_rectify(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, _roles, password in (CLERK, ADMIN):
        monkeypatch.setenv("ADMISSION_PASSWORD", password)
        code, out = rectify_name(data, "1", "--surname", "X", "--given-names", "Y", who=name)
        assert (code, out["error"]) == (1, "RECTIFY_ROLE_REQUIRED"), out
        assert out["message"] and out["message_en"]
    monkeypatch.setenv("ADMISSION_PASSWORD", "wrong-password")
    code, out = rectify_name(data, "1", "--surname", "X", "--given-names", "Y")
    assert (code, out["error"]) == (1, "BAD_CREDENTIALS")


@pytest.mark.parametrize(
    ("args", "exit_code", "answer"),
    [
        (["1", "--surname", "X" * 10_000, "--given-names", "ANA"], 1, "RECTIFY_VALUE_INVALID"),
        (["1", "--surname", "GARCIA\x07", "--given-names", "ANA"], 1, "RECTIFY_VALUE_INVALID"),
        (["1", "--surname", "'; DROP TABLE visitors; --", "--given-names", "A"], 1,
         "RECTIFY_VALUE_INVALID"),
        (["1", "--surname", "GARCIA LOPEZ", "--given-names", "ANA"], 1, "RECTIFY_UNCHANGED"),
        (["99", "--surname", "X", "--given-names", "Y"], 1, "RECTIFY_NOT_FOUND"),
        (["1 OR 1=1", "--surname", "X", "--given-names", "Y"], 2, "BAD_NUMBER"),
    ],
)  # fmt: skip
def test_hostile_input_answers_cleanly(
    data: Path, args: list[str], exit_code: int, answer: str
) -> None:
    code, out = rectify_name(data, *args)
    assert (code, out["error"]) == (exit_code, answer), out
    assert search(data, "garcia lopez") == [1]  # the file is whole
    assert verify(data)[0] == 0


@pytest.mark.parametrize("reason", ["", "ab", "x" * 10_000, "motivo\x00"])
def test_a_bad_reason_is_refused(data: Path, reason: str) -> None:
    code, out = cli("rectify", "name", "1", "--surname", "X", "--given-names", "Y",
                    "--reason", reason, "--as", "dora", data_dir=data)  # fmt: skip
    assert (code, out["error"]) == (1, "RECTIFY_REASON_INVALID")  # type: ignore[index]


def test_tampering_a_row_by_hand_makes_verify_name_the_entry(data: Path) -> None:
    assert rectify_name(data, "1", "--surname", "GARCIA", "--given-names", "ANA")[0] == 0
    with opened(data) as ctx:
        [entry] = [e for e in ctx.store.audit_entries(0, 10_000) if e.action == "RECTIFIED"]
        ctx.store.connection.execute(
            "UPDATE visitors SET surname = 'GARCIA LOPEZ' WHERE file_number = 1"
        )
    code, out = verify(data)
    assert code == 1 and out["ok"] is False
    assert (out["problem"], out["row"], out["first_bad_seq"]) == (
        "ROW_CHANGED",
        "visitor:1",
        entry.seq,
    )
    assert out["first_broken"] == {
        "seq": entry.seq,
        "at": entry.at.isoformat(),
        "actor": "dora",
        "action": "RECTIFIED",
        "subject": "file:1",
    }
    assert out["message"] and out["message"] != "ROW_CHANGED" and out["message_en"]


def test_a_changed_entry_is_named_and_a_missing_tail_has_no_entry(data: Path) -> None:
    with opened(data) as ctx:
        conn = ctx.store.connection
        conn.execute("DROP TRIGGER audit_no_update")
        conn.execute("DROP TRIGGER audit_no_delete")
        conn.execute("UPDATE audit SET subject = 'file:99' WHERE seq = 3")
    code, out = verify(data)
    assert (code, out["problem"], out["first_bad_seq"]) == (1, "DIGEST_MISMATCH", 3)
    assert out["first_broken"]["seq"] == 3 and out["first_broken"]["subject"] == "file:99"
    with opened(data) as ctx:
        last = ctx.store.head().seq
        ctx.store.connection.execute("PRAGMA foreign_keys = OFF")
        ctx.store.connection.execute("DELETE FROM audit WHERE seq >= 2")
    code, out = verify(data)
    assert (code, out["problem"]) == (1, "TAIL_MISSING"), out
    assert out["first_broken"] is None and last > 2
    assert out["message"]


def test_an_intact_chain_has_no_first_broken(data: Path) -> None:
    code, out = verify(data)
    assert (code, out["ok"]) == (0, True)
    assert "first_broken" not in out and "message" not in out


def test_retention_shows_counts_to_the_roles_that_may_see_them(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, answer = cli("retention", "--as", "dora", data_dir=data)
    out: Any = answer
    assert code == 0, out
    assert (out["visitors"], out["visits"], out["observations"], out["cards"]) == (2, 2, 1, 2)
    assert out["overdue"] == 0 and out["next_purge"] > out["now"]
    assert out["months"][0]["month"] == "2026-11"
    assert sum(m["visits"] for m in out["months"]) == 2
    assert "GARCIA" not in str(out) and dni(12345678) not in str(out)
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    assert cli("retention", "--as", "jefa", data_dir=data)[0] == 0
    monkeypatch.setenv("ADMISSION_PASSWORD", CLERK[2])
    code, out = cli("retention", "--as", "ana", data_dir=data)
    assert (code, out["error"]) == (1, "RETENTION_ROLE_REQUIRED")


def test_user_add_with_the_file_key_makes_an_inspector_who_signs_in(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADMISSION_USER")
    monkeypatch.setenv("ADMISSION_PASSWORD", INSPECTOR[1])
    code, out = cli("user", "add", INSPECTOR[0], "--role", "inspector", "--display-name",
                    "Inés", data_dir=data)  # fmt: skip
    assert code == 0, out
    assert out["account"]["roles"] == ["INSPECTOR"]  # type: ignore[index]
    assert out["account"]["display_name"] == "Inés"  # type: ignore[index]
    code, out = cli("retention", "--as", INSPECTOR[0], data_dir=data)
    assert code == 0, out
    with opened(data) as ctx:
        created = [e for e in ctx.store.audit_entries(0, 10_000) if e.action == "ACCOUNT_CREATED"]
    assert created[-1].actor == "file-key"
    assert verify(data)[0] == 0
    code, out = cli("user", "add", INSPECTOR[0], "--role", "clerk", data_dir=data)
    assert (code, out["error"]) == (1, "USERNAME_TAKEN")  # type: ignore[index]
    code, out = cli("user", "add", "file-key", "--role", "admin", data_dir=data)
    assert (code, out["error"]) == (1, "USERNAME_RESERVED")  # type: ignore[index]
    code, out = cli("user", "add", "nadie", "--role", "boss", data_dir=data)
    assert code == 2
    monkeypatch.setenv("ADMISSION_PASSWORD", "short")
    code, out = cli("user", "add", "corto", "--role", "clerk", data_dir=data)
    assert (code, out["error"]) == (1, "WEAK_PASSWORD")  # type: ignore[index]


def test_user_add_needs_the_file_key(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", INSPECTOR[1])
    code, out = cli("user", "add", "intrusa", "--role", "admin", data_dir=data,
                    key="not the key")  # fmt: skip
    assert code == 3, out
    with opened(data) as ctx:
        assert ctx.accounts.account("intrusa") is None
