"""``chip masterlist import FILE | show`` through the command line as main.py runs it: a
good list kept and audited (the director or the administrator), a stale, forged or
foreign file refused before anything is written, a clerk refused both, a stored list swapped
behind the audit's back refused at load."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.accounts import Role
from hardware.chip.document_pki import make_pki
from hardware.chip.masterlist import AUDIT_IMPORTED, MASTER_LIST_FILE
from tests.test_cli import (
    ADMIN,
    DIRECTOR,
    cli,
    create_accounts,
    quick_sign_in,  # noqa: F401 - the autouse fixture: cheap argon2, a clean environment
)
from tests.test_cli_access import audit_entries
from ui.cli import access, chip, commands
from ui.cli.sign_in import guarded

KEEPERS = frozenset({Role.ADMIN, Role.DIRECTOR})


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command and its rows of the access matrix, as ui/cli/commands.py and
    ui/cli/access.py hold them once registered (a no-op then)."""
    if "chip" not in commands.FILE_COMMANDS:
        monkeypatch.setitem(
            commands.FILE_COMMANDS, "chip", replace(chip.COMMAND, run=guarded(chip.COMMAND.run))
        )
    if chip.ACT not in access.MATRIX:
        monkeypatch.setitem(access.MATRIX, chip.ACT, access.Access(KEEPERS))


def _as(env: pytest.MonkeyPatch, account: tuple[str, list[str], str]) -> None:
    env.setenv("ADMISSION_USER", account[0])
    env.setenv("ADMISSION_PASSWORD", account[2])


def _imports(data: Path) -> list[Any]:
    """The file's CHIP_MASTERLIST_IMPORTED entries, its chain verified first."""
    code, out = cli("audit", "verify", data_dir=data)
    assert code == 0, out
    return [e for e in audit_entries(data) if e.action == AUDIT_IMPORTED]


def test_import_then_show(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = datetime.now(UTC)
    pki = make_pki(now=now)
    listed = tmp_path / "in" / "list.ml"
    listed.parent.mkdir()
    listed.write_bytes(pki.master_list())
    data = tmp_path / "desk"

    code, out = cli("chip", "masterlist", "show", data_dir=data)
    assert code == 1 and out["error"] == "MASTERLIST_NOT_IMPORTED"  # type: ignore[index]

    code, out = cli("chip", "masterlist", "import", str(listed), data_dir=data)
    assert code == 0, out
    assert out["cscas"] == 1 and out["countries"] == ["ES"]  # type: ignore[index]
    assert (data / MASTER_LIST_FILE).read_bytes() == listed.read_bytes()

    code, out = cli("chip", "masterlist", "show", data_dir=data)
    assert code == 0 and out["stale"] is False and out["cscas"] == 1  # type: ignore[index]

    (entry,) = _imports(data)
    assert entry.actor == "cli" and entry.subject == "chip-masterlist"
    assert entry.details["sha256"] == out["sha256"]  # type: ignore[index]
    assert entry.details["cscas"] == "1"

    # swapped behind the audit's back: refused at load
    (data / MASTER_LIST_FILE).write_bytes(make_pki("PT", now=now).master_list())
    code, out = cli("chip", "masterlist", "show", data_dir=data)
    assert code == 1 and out["error"] == "MASTERLIST_TAMPERED"  # type: ignore[index]


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("stale", "MASTERLIST_STALE"),
        ("forged", "MASTERLIST_SIGNATURE_INVALID"),
        ("outside", "MASTERLIST_SIGNER_UNTRUSTED"),
        ("sod", "MASTERLIST_NOT_A_LIST"),
        ("garbage", "MASTERLIST_MALFORMED"),
        ("missing", "NOT_FOUND"),
    ],
)
def test_a_bad_list_is_refused_before_anything_is_written(
    tmp_path: Path, kind: str, error: str
) -> None:
    now = datetime.now(UTC)
    pki = make_pki(now=now)
    made = {
        "stale": lambda: pki.master_list(signed_at=now - timedelta(days=91)),
        "forged": lambda: pki.master_list(forge_signature=True),
        "outside": lambda: pki.master_list(signer_outside=True),
        "sod": lambda: pki.sod({1: b"\x61\x00"}),
        "garbage": lambda: b"\x30\x03\x02\x01\x00",
    }
    listed = tmp_path / "list.ml"
    if kind in made:
        listed.write_bytes(made[kind]())
    data = tmp_path / "desk"
    code, out = cli("chip", "masterlist", "import", str(listed), data_dir=data)
    assert code == 1 and out["error"] == error, out  # type: ignore[index]
    assert out["message"] and out["message_en"]  # type: ignore[index]
    assert not (data / "chip").exists()


def test_only_the_director_or_the_administrator_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create_accounts(tmp_path, monkeypatch)  # the clerk signed in
    listed = tmp_path / "list.ml"
    listed.write_bytes(make_pki(now=datetime.now(UTC)).master_list())
    code, out = cli("chip", "masterlist", "import", str(listed), data_dir=tmp_path)
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    assert not (tmp_path / "chip").exists()
    code, out = cli("chip", "masterlist", "show", data_dir=tmp_path)
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    for account in (DIRECTOR, ADMIN):
        _as(monkeypatch, account)
        code, out = cli("chip", "masterlist", "import", str(listed), data_dir=tmp_path)
        assert code == 0, out
    assert [e.actor for e in _imports(tmp_path)] == [DIRECTOR[0], ADMIN[0]]
    code, out = cli("chip", "masterlist", "show", data_dir=tmp_path)
    assert code == 0 and out["cscas"] == 1  # type: ignore[index]
