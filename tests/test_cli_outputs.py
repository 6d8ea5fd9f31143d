"""Every command that writes a file the operator names (``--out``), through the real
command line on a real encrypted file with its four roles' accounts: the visitor file
and what belongs to it are never written over, even with ``--force``; a file already
there is kept without ``--force`` and replaced with it; a device node, a pipe or a
folder is never replaced; what is written is the owner's only (0600).

Every path is inside the test's own folder, even the device node: it is made there
(as root; a pipe otherwise), never taken from /dev."""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from admission.accounts import Role
from tests import test_cli_access
from tests.test_cli import ADMIN, CHEAP_ARGON2, SIGN_IN_VARS, cli, spanish_dni_mrz
from tests.test_cli_access import ACCOUNTS, ARGV, PURPOSE

desk = test_cli_access.desk  # the same fixture: the four roles, a register, one visitor

# the commands that write a file, and who runs each here (a role the matrix allows)
WRITERS: dict[str, Role] = {
    "leaflet": Role.CLERK,
    "regulation": Role.CLERK,
    "voucher issue": Role.CLERK,
    "inspect export": Role.INSPECTOR,
    "report day": Role.DIRECTOR,
    "access-report": Role.DIRECTOR,
    "backup": Role.ADMIN,
}
SIGNS_IN_WITH_AS = {"inspect export", "report day", "access-report"}
_PEOPLE = itertools.count(50_000_000)  # a new holder for every voucher issued


def write(data: Path, act: str, out: Path, *, force: bool = False) -> tuple[int, Any]:
    """``act`` run by its writer's account with ``--out out`` (and ``--force``)."""
    name, _, password = ACCOUNTS[WRITERS[act]]
    argv = list(ARGV[act])
    if act == "access-report":  # the visitor by file number: there is one, file 1
        argv[1:2] = ["--file", "1"]
    if act == "voucher issue":  # each voucher its own holder: one open voucher a person
        argv[argv.index("--mrz") + 1 : argv.index("--out")] = spanish_dni_mrz(next(_PEOPLE))
    argv[argv.index("--out") + 1] = str(out)
    argv += ["--force"] if force else []
    with pytest.MonkeyPatch.context() as env:
        for variable in SIGN_IN_VARS:
            env.delenv(variable, raising=False)
        env.setenv("ADMISSION_PASSWORD", password)
        if act in SIGNS_IN_WITH_AS:
            argv += ["--as", name]
        else:
            env.setenv("ADMISSION_USER", name)
        if act == "report day":
            argv += ["--purpose", PURPOSE]
        return cli(*argv, data_dir=data, clock_override=True)


def error_of(out: Any) -> str | None:
    return out.get("error") if isinstance(out, dict) else None


@pytest.fixture
def scratch(desk: Path) -> Iterator[Path]:
    """A folder of the test's own beside the data folder (never inside it)."""
    folder = desk.parent / f"{desk.name}-out-{next(_PEOPLE)}"
    folder.mkdir()
    yield folder


def intact(data: Path, marker: bytes) -> None:
    """The visitor file is still an encrypted file whose chain verifies, its marker as
    it was (a command may append to the file; nothing may write over it)."""
    head = (data / "visitors.db").read_bytes()[:16]
    assert not head.startswith(b"%PDF") and head != b"SQLite format 3\x00"
    assert (data / "visitors.db.marker").read_bytes() == marker
    with pytest.MonkeyPatch.context() as env:
        for variable in SIGN_IN_VARS:
            env.delenv(variable, raising=False)
        env.setenv("ADMISSION_USER", ACCOUNTS[Role.DIRECTOR][0])
        env.setenv("ADMISSION_PASSWORD", ACCOUNTS[Role.DIRECTOR][2])
        code, out = cli("audit", "verify", data_dir=data)
    assert code == 0 and isinstance(out, dict) and out.get("ok") is not False, out


@pytest.mark.parametrize("act", sorted(WRITERS))
@pytest.mark.parametrize(
    "name", ["visitors.db", "visitors.db-wal", "visitors.db.marker", "settings.json"]
)
def test_an_output_aimed_at_the_visitor_file_is_refused_even_forced(
    desk: Path,
    act: str,
    name: str,
) -> None:
    marker = (desk / "visitors.db.marker").read_bytes()
    target = desk / name
    before = target.read_bytes() if target.exists() else None
    code, out = write(desk, act, target, force=True)
    assert (code, error_of(out)) == (1, "OUTPUT_PROTECTED"), out
    if name != "visitors.db":  # the file itself may take the refused act's audit entry
        assert (target.read_bytes() if target.exists() else None) == before
    intact(desk, marker)


@pytest.mark.parametrize("act", sorted(WRITERS))
def test_a_file_already_there_is_kept_without_force_and_replaced_with_it(
    desk: Path,
    scratch: Path,
    act: str,
) -> None:
    out = scratch / "existing.out"
    out.write_bytes(b"older")
    out.chmod(0o644)
    code, answer = write(desk, act, out)
    assert (code, error_of(answer)) == (1, "OUTPUT_EXISTS"), answer
    assert out.read_bytes() == b"older"
    code, answer = write(desk, act, out, force=True)
    assert code == 0, answer
    assert out.read_bytes() != b"older" and out.stat().st_size > 100
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert sorted(p.name for p in scratch.iterdir()) == ["existing.out"]  # no temporary


@pytest.mark.parametrize("act", sorted(WRITERS))
def test_a_new_output_is_the_owner_s_only(desk: Path, scratch: Path, act: str) -> None:
    old = os.umask(0o022)
    try:
        code, answer = write(desk, act, scratch / "new.out")
    finally:
        os.umask(old)
    assert code == 0, answer
    assert stat.S_IMODE((scratch / "new.out").stat().st_mode) == 0o600


def test_a_voucher_is_not_issued_when_its_output_is_refused(desk: Path, scratch: Path) -> None:
    def open_vouchers() -> int:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("ADMISSION_USER", ACCOUNTS[Role.CLERK][0])
            env.setenv("ADMISSION_PASSWORD", ACCOUNTS[Role.CLERK][2])
            code, out = cli("voucher", "open", data_dir=desk)
        assert code == 0 and isinstance(out, dict), out
        return len(out["vouchers"])

    before = open_vouchers()
    (scratch / "taken.pdf").write_bytes(b"older")
    for out in (scratch / "taken.pdf", desk / "visitors.db", scratch / "missing" / "v.pdf"):
        code, answer = write(desk, "voucher issue", out)
        assert code == 1 and error_of(answer) in {"OUTPUT_EXISTS", "OUTPUT_PROTECTED",
                                                  "OUTPUT_NO_FOLDER"}, answer  # fmt: skip
    assert open_vouchers() == before


def special_files(folder: Path) -> list[Path]:
    """A character device like /dev/null made in ``folder`` (root only), a pipe, a
    folder, and a link to the pipe."""
    made = []
    with_device = folder / "null"
    try:
        os.mknod(with_device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        made.append(with_device)
    except PermissionError:
        pass
    os.mkfifo(folder / "pipe")
    (folder / "folder").mkdir()
    (folder / "to-pipe").symlink_to(folder / "pipe")
    return [*made, folder / "pipe", folder / "folder", folder / "to-pipe"]


@pytest.mark.parametrize("act", sorted(WRITERS))
def test_a_device_a_pipe_or_a_folder_is_never_replaced(
    desk: Path,
    scratch: Path,
    act: str,
) -> None:
    for special in special_files(scratch):
        kind = stat.S_IFMT(os.stat(special).st_mode)
        code, out = write(desk, act, special, force=True)
        assert (code, error_of(out)) == (1, "OUTPUT_NOT_A_FILE"), (special, out)
        assert stat.S_IFMT(os.stat(special).st_mode) == kind


@pytest.mark.parametrize("act", ["leaflet", "backup"])
def test_a_name_over_255_bytes_or_a_missing_folder_is_a_code(
    desk: Path,
    scratch: Path,
    act: str,
) -> None:
    code, out = write(desk, act, scratch / ("n" * 256))
    assert (code, error_of(out)) == (1, "OUTPUT_NAME_TOO_LONG"), out
    code, out = write(desk, act, scratch / "missing" / "out")
    assert (code, error_of(out)) == (1, "OUTPUT_NO_FOLDER"), out
    assert list(scratch.iterdir()) == []


def test_an_output_aimed_at_the_floor_page_s_keys_is_refused_even_forced(desk: Path) -> None:
    """The casino CA's private key the floor page's certificates hang from (art. 22.4) is
    the desk's own: a mistyped --out never replaces it, forced or not."""
    from ui.floor.certs import made_certificate

    made = made_certificate(desk, "127.0.0.1")
    ca_key = made.key.parent / "ca.key"
    keys = {path: path.read_bytes() for path in (ca_key, made.key)}
    for target in keys:
        code, out = write(desk, "leaflet", target, force=True)
        assert (code, error_of(out)) == (1, "OUTPUT_PROTECTED"), out
    assert {path: path.read_bytes() for path in keys} == keys


def test_the_desk_s_own_names_are_those_its_modules_write() -> None:
    """main.DESK_OWN_NAMES names a server desk's files without importing db.pg (psycopg
    stays out of a file desk's start): they must agree with the modules that write them."""
    import main
    from db.audit_key import KEY_FILE_SUFFIX
    from db.backup import BACKUP_LIST, DB_FILE
    from db.issued import ISSUED_FILE
    from db.pg.desk import DATABASE_ID_FILE, DEMO_AUDIT_KEY_BASE, OFFLINE_QUEUE_FILE
    from db.pg.target import CERT_SUBDIR
    from ui.floor.certs import TLS_FOLDER
    from ui.log_file import LOG_DIR

    written = {
        DB_FILE,
        main.SETTINGS_FILE,
        BACKUP_LIST,
        ISSUED_FILE,
        "cards",  # main: the card PDFs (CardFiles) and the demo's PDF folder
        CERT_SUBDIR,
        DATABASE_ID_FILE,
        OFFLINE_QUEUE_FILE,
        DEMO_AUDIT_KEY_BASE + KEY_FILE_SUFFIX,
        LOG_DIR,
        TLS_FOLDER,  # the floor page's CA and server keys (art. 22.4)
    }
    assert written <= set(main.DESK_OWN_NAMES)
    assert main.DB_FILE == DB_FILE


def test_the_demo_never_writes_over_the_real_visitor_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo works in a folder of its own inside the usual data folder: an output of
    the demo aimed at the real file beside it is refused all the same, to an account of
    the demo signed in (``leaflet`` signs in once the file has accounts, art. 25)."""
    from db import accounts

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # platformdirs: the usual folder
    monkeypatch.setattr(accounts, "Argon2Hasher", partial(accounts.Argon2Hasher, **CHEAP_ARGON2))
    for variable in SIGN_IN_VARS:  # nobody signed in but the demo's account below
        monkeypatch.delenv(variable, raising=False)
    import main

    usual = main.default_data_dir()
    assert tmp_path in usual.parents
    code, out = cli("init", data_dir=usual)
    assert code == 0, out
    record = (usual / "visitors.db").read_bytes()
    name, roles, password = ADMIN  # the demo file's first account: no sign-in to make it
    monkeypatch.setenv("ADMISSION_NEW_PASSWORD", password)
    code, out = cli("account", "add", name, "--display-name", "Jefa", "--role", *roles, "--demo")
    assert code == 0, out
    monkeypatch.delenv("ADMISSION_NEW_PASSWORD")
    monkeypatch.setenv("ADMISSION_USER", name)
    monkeypatch.setenv("ADMISSION_PASSWORD", password)
    for name in ("visitors.db", "visitors.db.marker"):
        code, out = cli("leaflet", "--demo", "--out", str(usual / name), "--force")
        assert (code, error_of(out)) == (1, "OUTPUT_PROTECTED"), out
    assert (usual / "visitors.db").read_bytes() == record
    code, out = cli("leaflet", "--demo", "--out", str(tmp_path / "leaflet.pdf"))
    assert code == 0 and (tmp_path / "leaflet.pdf").read_bytes().startswith(b"%PDF"), out
