"""The command line signs in an account of the visitor file (art. 20.3, 23.5).

Every admission names the account signed in; a wrong password is refused and audited;
a director's decision takes the director's own credentials (a clerk's are refused, and
a file without accounts refuses it outright); ``account list`` shows no hash. Run as
operators do, through ``main.run`` over a real encrypted file (tests/test_cli.py's
helpers), and one real process for the terminal-less refusal.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import (
    ADMIN,
    CLERK,
    DIRECTOR,
    KEY,
    cli,
    cli_process,
    create_accounts,
    import_register,
    spanish_dni_mrz,
)
from tests.test_cli import quick_sign_in as quick_sign_in  # autouse here too


def audit(data_dir: Path) -> list[tuple[str, str, dict[str, str]]]:
    """(actor, action, details) of every audit entry of the file."""
    from db.keys import DbKey
    from db.store import SqlCipherStore

    with SqlCipherStore.open(data_dir / "visitors.db", DbKey.from_text(KEY)) as store:
        return [(e.actor, e.action, dict(e.details)) for e in store.audit_entries()]


def no_registry_answer_needs_the_director(data_dir: Path) -> None:
    """With no register imported the RIAJ cannot answer: SUPERVISOR, overridable."""
    data_dir.mkdir(parents=True, exist_ok=True)
    settings = {"version": 2, "admission.unverifiable": "SUPERVISOR"}
    (data_dir / "settings.json").write_text(json.dumps(settings))


@pytest.fixture
def accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    create_accounts(tmp_path, monkeypatch)
    return tmp_path


def test_an_admission_records_the_account_signed_in(
    accounts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (accounts / "riaj.txt").write_text("00000000T\n")
    assert import_register(accounts / "riaj.txt", accounts)[0] == 0
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(12345678), "--no-pdf", data_dir=accounts)
    assert code == 0 and out["card_number"] == 1  # type: ignore[index]
    # the operator is the account, whatever the name typed elsewhere
    code, out = cli("visitor", "show", "1", data_dir=accounts)
    assert code == 0 and [v["operator"] for v in out["visits"]] == ["ana"]  # type: ignore[index]
    entries = audit(accounts)
    assert ("ana", "VISITOR_QUERY") in [(a, b) for a, b, _ in entries]
    assert [a for a, b, _ in entries if b == "LOGIN"].count("ana") == 2  # the import: dora
    # the option that let anybody type a name is gone
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(1), "--operator", "x", data_dir=accounts)
    assert code == 2 and out["error"] == "USAGE"  # type: ignore[index]
    # ADMISSION_USER or --user: nobody named, nothing recorded
    monkeypatch.delenv("ADMISSION_USER")
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(22222222), data_dir=accounts)
    assert code == 2 and out["error"] == "USER_REQUIRED"  # type: ignore[index]
    code, out = cli(
        "admit", "--mrz", *spanish_dni_mrz(22222222), "--no-pdf", "--user", "dora",
        data_dir=accounts,
    )  # fmt: skip
    assert code == 1 and out["error"] == "BAD_CREDENTIALS"  # type: ignore[index]


def test_a_wrong_password_is_refused_audited_and_records_nothing(
    accounts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", "not-the-password")
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(12345678), "--no-pdf", data_dir=accounts)
    assert code == 1 and out["error"] == "BAD_CREDENTIALS"  # type: ignore[index]
    assert "not-the-password" not in json.dumps(out)
    code, out = cli("visitor", "search", "garcia", "--user", "nobody", data_dir=accounts)
    assert code == 1 and out["error"] == "BAD_CREDENTIALS"  # type: ignore[index]  # same answer
    entries = audit(accounts)
    failed = [(a, d.get("reason")) for a, b, d in entries if b == "LOGIN_FAILED"]
    assert failed == [("ana", "BAD_CREDENTIALS"), ("-", None)]
    assert not [b for _, b, _ in entries if b in ("ADMISSION", "VISITOR_SEARCH")]
    assert "not-the-password" not in repr(entries)
    monkeypatch.setenv("ADMISSION_PASSWORD", CLERK[2])
    code, out = cli("visitor", "search", "garcia", data_dir=accounts)
    assert code == 0 and out == {"visitors": []}


def test_five_wrong_passwords_lock_the_account_and_say_until_when(
    accounts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", "not-the-password")
    for _ in range(5):
        code, out = cli("visitor", "search", "garcia", data_dir=accounts)
    assert code == 1 and out["error"] == "ACCOUNT_LOCKED" and out["locked_until"]  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_PASSWORD", CLERK[2])  # the right one waits for the lock
    code, out = cli("visitor", "search", "garcia", data_dir=accounts)
    assert code == 1 and out["error"] == "ACCOUNT_LOCKED"  # type: ignore[index]


def test_a_directors_decision_takes_the_directors_own_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_registry_answer_needs_the_director(tmp_path)
    create_accounts(tmp_path, monkeypatch)
    visitor = spanish_dni_mrz(12345678)
    # no director: the verdict stands, no card (art. 20.3)
    code, out = cli("admit", "--mrz", *visitor, "--no-pdf", data_dir=tmp_path)
    assert code == 1 and out["verdict"] == "SUPERVISOR" and out["card_number"] is None  # type: ignore[index]
    # the clerk naming herself as director, with her own password: refused, audited
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", CLERK[2])
    code, out = cli("admit", "--mrz", *visitor, "--no-pdf", "--director", "ana", data_dir=tmp_path)
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    # the director's name with a wrong password: refused
    code, out = cli("admit", "--mrz", *visitor, "--no-pdf", "--director", "dora", data_dir=tmp_path)
    assert code == 1 and out["error"] == "BAD_CREDENTIALS"  # type: ignore[index]
    # the director's own credentials: the card, under her name
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", DIRECTOR[2])
    code, out = cli("admit", "--mrz", *visitor, "--no-pdf", "--director", "dora", data_dir=tmp_path)
    assert code == 0 and out["verdict"] == "ADMIT" and out["card_number"] == 1  # type: ignore[index]
    code, out = cli("visitor", "show", "1", data_dir=tmp_path)
    assert out["cards"][0]["authorised_by"] == "dora"  # type: ignore[index]
    assert out["visits"][-1]["operator"] == "ana"  # type: ignore[index]
    entries = audit(tmp_path)
    refused = [(a, d["reason"]) for a, b, d in entries if b == "AUTHORISATION_FAILED"]
    assert refused == [("ana", "ROLE_REQUIRED"), ("dora", "BAD_CREDENTIALS")]
    granted = [(a, d["purpose"]) for a, b, d in entries if b == "AUTHORISED"]
    assert granted == [("dora", "REGISTRY_UNVERIFIABLE")]
    assert ("dora", "OVERRIDE") in [(a, b) for a, b, _ in entries]
    # voiding it: the clerk's credentials again refused, the director's recorded
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", CLERK[2])
    code, out = cli("void-card", "1", "--reason", "error", "--director", "ana", data_dir=tmp_path)
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    code, out = cli("void-card", "1", "--reason", "error", data_dir=tmp_path)
    assert code == 2 and out["error"] == "DIRECTOR_NAME_REQUIRED"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", DIRECTOR[2])
    code, out = cli("void-card", "1", "--reason", "error", "--director", "dora", data_dir=tmp_path)
    assert (code, out["status"]) == (0, "VOIDED")  # type: ignore[index]
    voided = [a for a, b, _ in audit(tmp_path) if b.startswith("CARD_VOID")]
    assert voided == ["dora"]


def test_an_exceptional_card_needs_the_director(
    accounts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (accounts / "riaj.txt").write_text("00000000T\n")
    assert import_register(accounts / "riaj.txt", accounts)[0] == 0
    visitor = ["--mrz", *spanish_dni_mrz(12345678), "--no-pdf", "--exceptional"]
    code, out = cli("admit", *visitor, data_dir=accounts)
    assert code == 2 and out["error"] == "DIRECTOR_NAME_REQUIRED"  # type: ignore[index]
    code, out = cli("admit", *visitor, "--director", "dora", data_dir=accounts)
    assert code == 0 and out["card_number"] == 1  # type: ignore[index]
    code, out = cli("visitor", "show", "1", data_dir=accounts)
    card = out["cards"][0]  # type: ignore[index]
    assert card["exceptional"] is True and card["authorised_by"] == "dora"


def test_without_accounts_operator_acts_run_as_cli_and_director_decisions_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "riaj.txt").write_text("00000000T\n")
    assert cli("registry", "import", str(tmp_path / "riaj.txt"), data_dir=tmp_path)[0] == 0
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(12345678), "--no-pdf", data_dir=tmp_path)
    assert code == 0 and out["card_number"] == 1  # type: ignore[index]
    code, out = cli("visitor", "show", "1", data_dir=tmp_path)
    assert out["visits"][0]["operator"] == "cli"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", "whatever-it-is")
    for argv in (
        ["void-card", "1", "--reason", "x", "--director", "dora"],
        ["void-card", "1", "--reason", "x"],
        ["print-card", "1", "--reason", "x", "--director", "dora"],
        ["admit", "--mrz", *spanish_dni_mrz(23456789), "--no-pdf", "--director", "dora"],
        ["admit", "--mrz", *spanish_dni_mrz(23456789), "--no-pdf", "--exceptional"],
        ["purge", "--confirm-clock", "--director", "dora"],
    ):
        code, out = cli(*argv, data_dir=tmp_path)
        assert code == 1 and out["error"] == "DIRECTOR_ACCOUNT_REQUIRED", (argv, out)  # type: ignore[index]
    code, out = cli("visitor", "show", "1", data_dir=tmp_path)
    assert out["cards"][0]["status"] != "VOIDED" and len(out["visits"]) == 1  # type: ignore[index]
    # a user named where no account exists is said plainly
    code, out = cli("visitor", "show", "1", "--user", "ana", data_dir=tmp_path)
    assert code == 2 and out["error"] == "NO_ACCOUNTS"  # type: ignore[index]


def test_accounts_are_made_by_an_administrator_and_listed_without_hashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = cli("account", "list", data_dir=tmp_path)
    assert (code, out) == (0, {"accounts": []})
    monkeypatch.setenv("ADMISSION_NEW_PASSWORD", CLERK[2])
    code, out = cli("account", "add", "ana", "--display-name", "Ana", "--role", "CLERK",
                    data_dir=tmp_path)  # fmt: skip
    assert code == 1 and out["error"] == "FIRST_ACCOUNT_NOT_ADMIN"  # type: ignore[index]
    monkeypatch.delenv("ADMISSION_NEW_PASSWORD")
    create_accounts(tmp_path, monkeypatch)  # signed in as the clerk
    code, out = cli("account", "list", data_dir=tmp_path)
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_NEW_PASSWORD", "another-pass-1")
    code, out = cli("account", "add", "eve", "--display-name", "Eve", "--role", "ADMIN",
                    data_dir=tmp_path)  # fmt: skip
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    code, out = cli("account", "list", "--user", ADMIN[0], data_dir=tmp_path)
    assert code == 0 and isinstance(out, dict)
    listed = {a["username"]: a["roles"] for a in out["accounts"]}
    assert listed == {"ana": ["CLERK"], "dora": ["DIRECTOR"], "jefa": ["ADMIN"]}
    text = json.dumps(out)
    assert "argon2" not in text and "hash" not in text and "pass-1" not in text
    # a new password for the clerk, from the environment, never an argument
    code, out = cli("account", "passwd", "ana", "--user", ADMIN[0], data_dir=tmp_path)
    assert (code, out) == (0, {"changed": True, "account": "ana"})
    monkeypatch.setenv("ADMISSION_PASSWORD", "another-pass-1")
    code, out = cli("visitor", "search", "garcia", data_dir=tmp_path)
    assert code == 0
    # disabled: the clerk no longer signs in; the last administrator stays one
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    code, out = cli("account", "disable", "ana", "--user", ADMIN[0], data_dir=tmp_path)
    assert code == 0 and out["account"]["active"] is False  # type: ignore[index]
    code, out = cli("account", "disable", ADMIN[0], "--user", ADMIN[0], data_dir=tmp_path)
    assert code == 1 and out["error"] == "LAST_ADMIN"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_PASSWORD", "another-pass-1")
    code, out = cli("visitor", "search", "garcia", data_dir=tmp_path)
    assert code == 1 and out["error"] == "ACCOUNT_DISABLED"  # type: ignore[index]
    code, out = cli("account", "add", "x", "--display-name", "X", "--role", "CLERK",
                    "--password", "secret-pass", data_dir=tmp_path)  # fmt: skip
    assert code == 2  # no password on the command line


def test_without_a_password_or_a_terminal_the_process_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create_accounts(tmp_path, monkeypatch)
    monkeypatch.delenv("ADMISSION_PASSWORD")
    code, out = cli_process("visitor", "search", "garcia", data_dir=tmp_path)
    assert code == 2 and out["error"] == "PASSWORD_REQUIRED"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_PASSWORD", CLERK[2])  # a real process: the product's argon2
    code, out = cli_process("visitor", "search", "garcia", data_dir=tmp_path)
    assert (code, out) == (0, {"visitors": []})
