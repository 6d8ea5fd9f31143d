"""``account pin``: the signed-in operator sets their own quick-unlock PIN (4-8 digits)
with their password; kept as an argon2id hash in the visitor file, audited without the
PIN, removable; refused with its code when malformed, with a wrong password, or with no
terminal to type it on - through ``main.run`` over a real encrypted file, and one real
process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_cli import CLERK, DIRECTOR, KEY, cli, cli_process, create_accounts
from tests.test_cli import quick_sign_in as quick_sign_in  # autouse here too
from tests.ui.test_cli_accounts import audit

PIN = "4821"


@pytest.fixture
def accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    create_accounts(tmp_path, monkeypatch)  # the clerk signs in through the environment
    return tmp_path


def stored_pin(data_dir: Path, name: str) -> str | None:
    from db.accounts import StoreAccountBook
    from db.keys import DbKey
    from db.store import SqlCipherStore

    with SqlCipherStore.open(data_dir / "visitors.db", DbKey.from_text(KEY)) as store:
        found = StoreAccountBook(store).find(name)
        assert found is not None
        return found.pin_hash


def test_the_operator_sets_and_removes_their_own_pin(
    accounts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_NEW_PIN", PIN)
    code, out = cli("account", "pin", data_dir=accounts)
    assert (code, out) == (0, {"changed": True, "account": CLERK[0], "pin": True})
    kept = stored_pin(accounts, CLERK[0])
    assert kept is not None and kept.startswith("$argon2id$") and PIN not in kept
    trail = audit(accounts)
    assert (CLERK[0], "ACCOUNT_CHANGED", {"change": "pin"}) in trail
    assert PIN not in repr(trail) and kept not in repr(trail)
    code, out = cli("account", "pin", "--remove", data_dir=accounts)
    assert (code, out) == (0, {"changed": True, "account": CLERK[0], "pin": False})
    assert stored_pin(accounts, CLERK[0]) is None
    assert stored_pin(accounts, DIRECTOR[0]) is None  # only one's own
    code, out = cli("audit", "verify", data_dir=accounts)
    assert code == 0 and out["ok"] is True  # type: ignore[index]


@pytest.mark.parametrize("pin", ["123", "123456789", "12a4", "   "])
def test_a_pin_is_four_to_eight_digits(
    accounts: Path, monkeypatch: pytest.MonkeyPatch, pin: str
) -> None:
    monkeypatch.setenv("ADMISSION_NEW_PIN", pin)
    code, out = cli("account", "pin", data_dir=accounts)
    assert (code, out["error"]) == (1, "PIN_INVALID")  # type: ignore[index]
    assert out["message"] and out["message_en"]  # type: ignore[index]
    assert stored_pin(accounts, CLERK[0]) is None


def test_a_wrong_password_sets_nothing(accounts: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMISSION_NEW_PIN", PIN)
    monkeypatch.setenv("ADMISSION_PASSWORD", "wrong-password")
    code, out = cli("account", "pin", data_dir=accounts)
    assert (code, out["error"]) == (1, "BAD_CREDENTIALS")  # type: ignore[index]
    monkeypatch.delenv("ADMISSION_USER")
    code, out = cli("account", "pin", data_dir=accounts)
    assert (code, out["error"]) == (2, "USER_REQUIRED")  # type: ignore[index]
    assert stored_pin(accounts, CLERK[0]) is None


def test_without_a_terminal_the_pin_must_come_from_the_environment(
    accounts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADMISSION_NEW_PIN", raising=False)
    assert "ADMISSION_NEW_PIN" not in os.environ
    code, out = cli_process("account", "pin", data_dir=accounts)
    assert (code, out["error"]) == (2, "PASSWORD_REQUIRED")  # type: ignore[index]
    assert stored_pin(accounts, CLERK[0]) is None
