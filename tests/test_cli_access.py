"""Who may run which command (``ui.cli.access.MATRIX``), walked cell by cell through the
real command line on a real encrypted file with an administrator, a clerk, a game
director and an inspector (arts. 20.3-20.4): an allowed cell is never refused for the
role or the sign-in, a refused one answers its code. ``README.md`` shows the same
table, and every command of the command line has its row, so neither can drift.

One desk file is set up for the module; each cell runs in this process
(``tests.test_cli.cli``), as ``main.py`` does.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from admission.accounts import RESERVED_USERNAMES, Role
from tests.factories import dni
from tests.test_cli import (
    ADMIN,
    CHEAP_ARGON2,
    CLERK,
    DIRECTOR,
    KEY,
    SIGN_IN_VARS,
    cli,
    create_accounts,
    spanish_dni_mrz,
)
from ui.cli.access import MATRIX, ROLE_REFUSED, UNSIGNED_COLUMN, Access, cell, markdown_table

ROOT = Path(__file__).resolve().parents[1]
INSPECTOR = ("ines", ["INSPECTOR"], "inspector-pass-1")
SPARE = ("temporal", ["CLERK"], "spare-pass-1")  # an account the administrator disables
ACCOUNTS = {
    Role.ADMIN: ADMIN,
    Role.CLERK: CLERK,
    Role.DIRECTOR: DIRECTOR,
    Role.INSPECTOR: INSPECTOR,
}
PURPOSE = "Expediente 7/2026 de la inspección"
NOT_IN_MATRIX = {"demo"}  # works on its own demo file of invented people, never this one
MRZ = spanish_dni_mrz(12345678)

# Answers that mean "refused for who you are (or are not)": an allowed cell gives none.
SIGN_IN_REFUSALS = {
    "USAGE",
    "USER_REQUIRED",
    "PASSWORD_REQUIRED",
    "NO_ACCOUNTS",
    "BAD_CREDENTIALS",
    "ACCOUNT_LOCKED",
    "ACCOUNT_DISABLED",
    "PURPOSE_REQUIRED",
    *(str(rule.refusal) for rule in MATRIX.values()),
}

# each command as the walk runs it; {out}: a new path per cell, {name}: the acting user
ARGV: dict[str, list[str]] = {
    "admit": ["admit", "--mrz", *MRZ, "--no-pdf"],
    "scan": ["scan", "--replay", "{recording}"],
    "voucher issue": ["voucher", "issue", "--mrz", *MRZ, "--out", "{out}.pdf"],
    "voucher exchange": ["voucher", "exchange", "999", "--mrz", *MRZ, "--no-pdf"],
    "voucher cancel": ["voucher", "cancel", "999", "--reason", "desistió"],
    "voucher open": ["voucher", "open"],
    "print-card": ["print-card", "999"],
    "void-card": ["void-card", "999", "--reason", "extraviada", "--director", DIRECTOR[0]],
    "reprint-queue": ["reprint-queue"],
    "verify-card": ["verify-card", "ABC"],
    "read-chip": ["read-chip", "--mrz", *MRZ],
    "visitor show": ["visitor", "show", "1"],
    "visitor search": ["visitor", "search", "garcia"],
    "visitor note": ["visitor", "note", "1", "habitual de los viernes"],
    "registry import": ["registry", "import", "{register}"],
    "registry sync": ["registry", "sync"],
    "registry status": ["registry", "status"],
    "registry check": ["registry", "check", "--id", dni(11111111)],
    "leaflet": ["leaflet", "--out", "{out}.pdf"],
    "regulation": ["regulation", "--out", "{out}.pdf"],
    "purge": ["purge"],
    "audit verify": ["audit", "verify"],
    "audit head": ["audit", "head"],
    "inspect search": ["inspect", "search", "--name", "garcia", "--purpose", PURPOSE],
    "inspect timeline": ["inspect", "timeline", "1", "--purpose", PURPOSE],
    "inspect export": [
        "inspect",
        "export",
        "--name",
        "garcia",
        "--purpose",
        PURPOSE,
        "--out",
        "{out}.csv",
    ],
    "report day": ["report", "day", "2026-12-01", "--out", "{out}.pdf"],
    "report figures": ["report", "figures", "2026-12-01", "2026-12-02"],
    "access-report": ["access-report", "1", "--out", "{out}.pdf", "--purpose", PURPOSE],
    "rectify name": [
        "rectify",
        "name",
        "1",
        "--surname",
        "GARCÍA LÓPEZ",
        "--given-names",
        "ANA",
        "--reason",
        "error de lectura",
    ],
    "rectify observation": [
        "rectify",
        "observation",
        "1",
        "999",
        "--text",
        "nota",
        "--reason",
        "error",
    ],
    "retention": ["retention"],
    "account add": ["account", "add", "nuevo", "--display-name", "Nuevo", "--role", "CLERK"],
    "account list": ["account", "list"],
    "account passwd": ["account", "passwd", "{name}"],
    "account disable": ["account", "disable", SPARE[0]],
    "account pin": ["account", "pin", "--remove"],
    "user add": ["user", "add", "walk-{name}", "--role", "clerk"],
    "backup": ["backup", "--out", "{out}.db"],
    "db copy-to-server": [
        "db",
        "copy-to-server",
        "--url",
        "postgresql://desk1@127.0.0.1:1/admission",
    ],
    "db rotate-key": ["db", "rotate-key", "--rewrap"],
    "server confirm-restore": ["server", "confirm-restore"],
    "card-key show": ["card-key", "show"],
    "card-key rotate": ["card-key", "rotate"],
    # TEST-NET-1 (RFC 5737) is no address of this machine: served, it answers at once
    "floor serve": ["floor", "serve", "--listen", "192.0.2.1:8443"],
    "floor token": ["floor", "token", "list"],
    "chip masterlist": ["chip", "masterlist", "show"],
    "support-bundle": ["support-bundle", "--out", "{out}.zip"],
}
SIGNS_IN_WITH_AS = {  # these name who signs in with --as NAME, not --user
    "inspect search", "inspect timeline", "inspect export", "report day", "report figures",
    "access-report", "rectify name", "rectify observation", "retention",
}  # fmt: skip


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A visitor file with the four roles' accounts (and a spare clerk), the register
    imported by the director, and one visitor admitted by the clerk (file 1, card 1).
    The desk's regulation text is one article (the setting ``leaflet.regulation_path``):
    the whole decree takes seconds to set in type, for each cell."""
    from db import accounts

    data = tmp_path_factory.mktemp("access")
    (data / "regulation.txt").write_text("Artículo 25. Información.\n", encoding="utf-8")
    settings = {"version": 2, "leaflet.regulation_path": str(data / "regulation.txt")}
    (data / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    with pytest.MonkeyPatch.context() as env:
        env.setattr(accounts, "Argon2Hasher", partial(accounts.Argon2Hasher, **CHEAP_ARGON2))
        for name in SIGN_IN_VARS:
            env.delenv(name, raising=False)
        create_accounts(data, env)
        env.setenv("ADMISSION_PASSWORD", ADMIN[2])
        for name, roles, password in (INSPECTOR, SPARE):
            env.setenv("ADMISSION_NEW_PASSWORD", password)
            code, out = cli("account", "add", name, "--display-name", name.title(),
                            "--role", *roles, "--user", ADMIN[0], data_dir=data)  # fmt: skip
            assert code == 0, out
        env.delenv("ADMISSION_NEW_PASSWORD")
        (data / "riaj.txt").write_text(f"{dni(11111111)}\n", encoding="utf-8")
        (data / "recording.json").write_text("[]", encoding="utf-8")
        env.setenv("ADMISSION_USER", DIRECTOR[0])
        env.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
        code, out = cli("registry", "import", str(data / "riaj.txt"), data_dir=data)
        assert code == 0, out
        env.setenv("ADMISSION_USER", CLERK[0])
        env.setenv("ADMISSION_PASSWORD", CLERK[2])
        code, out = cli("admit", "--mrz", *MRZ, "--no-pdf", data_dir=data)
        assert code == 0, out
        for name in SIGN_IN_VARS:  # each test signs in for itself: the module's later
            env.delenv(name, raising=False)  # tests must not run as this clerk
        yield data


def run_cell(desk: Path, act: str, role: Role | None, env: pytest.MonkeyPatch) -> tuple[int, Any]:
    """``act`` run by ``role``'s account (None: nobody signed in)."""
    for variable in SIGN_IN_VARS:
        env.delenv(variable, raising=False)
    label = "nobody" if role is None else role.value.lower()
    name = "" if role is None else ACCOUNTS[role][0]
    argv = [
        token.format(
            out=desk / f"{act.replace(' ', '-')}-{label}",
            name=name or label,
            register=desk / "riaj.txt",
            recording=desk / "recording.json",
        )
        for token in ARGV[act]
    ]
    env.setenv("ADMISSION_NEW_PASSWORD", "walk-pass-1")  # user add: the key's holder
    if role is not None:
        _, _, password = ACCOUNTS[role]
        env.setenv("ADMISSION_PASSWORD", password)
        env.setenv("ADMISSION_NEW_PASSWORD", password)  # account passwd: the same again
        env.setenv("ADMISSION_DIRECTOR_PASSWORD", DIRECTOR[2])
        if act in SIGNS_IN_WITH_AS:
            argv += ["--as", name]
        else:
            env.setenv("ADMISSION_USER", name)
        if "--purpose" not in argv and (role in MATRIX[act].purpose or takes_purpose(act)):
            argv += ["--purpose", PURPOSE]
    return cli(*argv, data_dir=desk, clock_override=True)


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Every file command's parser by its row name (``registry import``...), and the
    support bundle's (it opens the file for its audit head alone)."""
    from ui.cli.commands import FILE_COMMANDS, SUPPORT_COMMANDS

    found: dict[str, argparse.ArgumentParser] = {}
    commands: dict[str, Any] = {**FILE_COMMANDS, **SUPPORT_COMMANDS}
    for name, command in commands.items():
        parser = argparse.ArgumentParser(prog=name)
        command.arguments(parser, argparse.ArgumentParser(add_help=False))
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs:
            found |= {f"{name} {sub}": p for sub, p in subs[0].choices.items()}
        else:
            found[name] = parser
    return found


def takes_purpose(act: str) -> bool:
    """Whether ``act`` requires ``--purpose`` of whoever runs it."""
    return any("--purpose" in a.option_strings and a.required for a in parsers()[act]._actions)


def answer_code(out: Any) -> str | None:
    return out.get("error") if isinstance(out, dict) else None


CELLS = [
    pytest.param(act, role, id=f"{act}-{'nobody' if role is None else role.value}")
    for act in MATRIX
    for role in (Role.CLERK, Role.DIRECTOR, Role.INSPECTOR, Role.ADMIN, None)
]


@pytest.mark.parametrize(("act", "role"), CELLS)
def test_each_cell_of_the_matrix_answers_as_the_table_says(
    desk: Path, act: str, role: Role | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = cell(act, role)
    code, out = run_cell(desk, act, role, monkeypatch)
    got = answer_code(out)
    rule: Access = MATRIX[act]
    allowed = (rule.unsigned is None) if role is None else role in rule.roles | rule.own
    if allowed:
        assert got not in SIGN_IN_REFUSALS, (act, role, code, out)
    else:
        assert got == expected, (act, role, code, out)


def test_a_refusal_for_the_role_is_audited_and_changes_nothing(
    desk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = run_cell(desk, "registry import", Role.CLERK, monkeypatch)
    assert (code, answer_code(out)) == (1, "ROLE_REQUIRED")
    code, out = run_cell(desk, "registry status", Role.CLERK, monkeypatch)
    assert code == 0 and out["replica"]["version"]  # the director's import still in force
    entries = audit_entries(desk)
    refused = [e for e in entries if e.action == ROLE_REFUSED]
    assert ("ana", "command:registry import") in [(e.actor, e.subject) for e in refused]


def test_an_inspector_states_a_purpose_to_read_the_file(
    desk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_USER", INSPECTOR[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", INSPECTOR[2])
    for argv in (["visitor", "show", "1"], ["visitor", "search", "garcia"]):
        code, out = cli(*argv, data_dir=desk)
        assert (code, answer_code(out)) == (2, "PURPOSE_REQUIRED")
        code, out = cli(*argv, "--purpose", "x", data_dir=desk)
        assert (code, answer_code(out)) == (1, "INSPECT_PURPOSE_INVALID")
        code, out = cli(*argv, "--purpose", PURPOSE, data_dir=desk)
        assert code == 0, out
    reads = [e for e in audit_entries(desk) if e.actor == INSPECTOR[0]]
    recorded = [(e.action, e.details.get("purpose")) for e in reads if "purpose" in e.details]
    assert ("VISITOR_QUERY", PURPOSE) in recorded and ("VISITOR_SEARCH", PURPOSE) in recorded


def test_the_readme_shows_the_matrix_of_the_code() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert markdown_table() in readme
    assert UNSIGNED_COLUMN in markdown_table()


def test_every_command_of_the_command_line_has_its_row() -> None:
    assert set(parsers()) - NOT_IN_MATRIX == set(MATRIX) == set(ARGV)


@pytest.mark.parametrize("name", sorted(RESERVED_USERNAMES))
def test_an_actor_the_program_writes_cannot_become_an_account(
    desk: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_USER", ADMIN[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    monkeypatch.setenv("ADMISSION_NEW_PASSWORD", "a-long-password")
    code, out = cli("account", "add", name, "--display-name", "X", "--role", "CLERK",
                    data_dir=desk)  # fmt: skip
    assert (code, answer_code(out)) == (1, "USERNAME_RESERVED")
    code, out = cli("user", "add", name.upper(), "--role", "clerk", data_dir=desk)
    assert (code, answer_code(out)) == (1, "USERNAME_RESERVED")
    assert json.dumps(out).count("a-long-password") == 0


# where the code names an actor of the audit trail itself
ACTOR_LITERALS = (
    r'\b(?:actor|operator)(?:: str)?\s*=\s*"([a-z][a-z0-9._-]*)"',  # defaults, arguments
    r'_ACTOR\s*=\s*"([a-z][a-z0-9._-]*)"',  # constants
    r'\.append\(\s*"([a-z][a-z0-9._-]*)",',  # chain.append("retention", ...)
    r'\(\s*(?:conn|tx),\s*"([a-z][a-z0-9._-]*)",\s*"[A-Z_]+"',  # _audit(conn, "x", "ACT"
    r'\btx\.audit\(\s*"([a-z][a-z0-9._-]*)",\s*"[A-Z_]+"',  # tx.audit("x", "ACT" (db/tx.py)
    r'if operator is not None else "([a-z][a-z0-9._-]*)"',
)


def test_every_actor_the_program_writes_is_a_reserved_name() -> None:
    written: dict[str, str] = {}
    sources = [ROOT / "main.py"]
    for package in ("admission", "db", "hardware", "ui"):
        sources += sorted((ROOT / package).rglob("*.py"))
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for pattern in ACTOR_LITERALS:
            for found in re.finditer(pattern, text):
                written.setdefault(found.group(1), str(source.relative_to(ROOT)))
    assert {"cli", "init", "retention", "card-printer"} <= set(written)  # the scan finds them
    assert {n: where for n, where in written.items() if n not in RESERVED_USERNAMES} == {}


def audit_entries(data: Path) -> list[Any]:
    from db.keys import DbKey
    from db.store import SqlCipherStore

    with SqlCipherStore.open(data / "visitors.db", DbKey.from_text(KEY)) as store:
        return list(store.audit_entries(0, 100_000))
