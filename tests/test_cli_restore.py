"""``restore FILE`` never goes back silently (art. 20.4; art. 23: one card number, one
visitor), through ``main.run`` over the real encrypted file: a backup older than what the
folder recorded is refused with what it would lose, restored only with ``--accept-loss``
and the game director's credentials, and the card numbers issued since are not issued
again. A killed restore's temporary copy is gone after the next command."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.test_cli import CLERK, DIRECTOR, cli, create_accounts, dni, spanish_dni_mrz
from tests.test_cli import quick_sign_in as quick_sign_in  # autouse here too

Person = tuple[str, list[str], str]


def _sign_in(monkeypatch: pytest.MonkeyPatch, who: Person) -> None:
    monkeypatch.setenv("ADMISSION_USER", who[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", who[2])


def _admit(data_dir: Path, number: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Admit one visitor as the clerk (the register imported by the director first)."""
    snapshot = data_dir.parent / "riaj.txt"
    if not snapshot.exists():
        _sign_in(monkeypatch, DIRECTOR)
        snapshot.write_text(f"# RIAJ casino scope\n{dni(11111111)}\n", encoding="utf-8")
        code, out = cli("registry", "import", str(snapshot), data_dir=data_dir)
        assert code == 0, out
    _sign_in(monkeypatch, CLERK)
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(number), data_dir=data_dir)
    assert code == 0 and isinstance(out, dict), out
    return int(out["card_number"])


def _lose_the_file(desk: Path, aside: Path) -> None:
    """The disk loses the file: it and its marker are moved aside (docs/backup.md); the
    audit key file and the rest of the folder stay."""
    aside.mkdir()
    for name in ("visitors.db", "visitors.db.marker", "visitors.db-wal", "visitors.db-shm"):
        if (desk / name).exists():
            shutil.move(str(desk / name), str(aside / name))


def _restore(copy: Path, desk: Path, *extra: str) -> tuple[int, object]:
    return cli("restore", str(copy), *extra, "--data-dir", str(desk))


def test_an_older_backup_needs_accept_loss_and_the_director_and_numbers_move_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)
    assert _admit(desk, 12345678, monkeypatch) == 1
    _sign_in(monkeypatch, DIRECTOR)
    copy = tmp_path / "old.db"
    assert cli("backup", "--out", str(copy), data_dir=desk)[0] == 0
    assert _admit(desk, 23456789, monkeypatch) == 2  # not in the backup
    _lose_the_file(desk, tmp_path / "aside")

    code, out = _restore(copy, desk)
    assert code == 1 and isinstance(out, dict), out
    assert out["error"] == "RESTORE_LOSES_DATA"
    assert (out["lost_cards"], out["lost_visits"], out["lost_vouchers"]) == (1, 1, 0)
    assert out["card_resumes_at"] == 3 and out["lost_audit_entries"] > 0
    assert "ISSUED_RECORD" in out["reasons"] and "AUDIT_HEAD" in out["reasons"]
    assert not (desk / "visitors.db").exists()

    code, out = _restore(copy, desk, "--accept-loss")
    assert code == 2 and isinstance(out, dict) and out["error"] == "DIRECTOR_NAME_REQUIRED"
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", CLERK[2])
    code, out = _restore(copy, desk, "--accept-loss", "--director", CLERK[0])
    assert code == 1 and isinstance(out, dict) and out["error"] == "ROLE_REQUIRED", out
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", "not-the-password")
    code, out = _restore(copy, desk, "--accept-loss", "--director", DIRECTOR[0])
    assert code == 1 and isinstance(out, dict) and out["error"] == "BAD_CREDENTIALS", out
    assert not (desk / "visitors.db").exists()
    assert [n for n in os.listdir(desk) if n.endswith(".tmp")] == []

    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", DIRECTOR[2])
    code, out = _restore(copy, desk, "--accept-loss", "--director", DIRECTOR[0])
    assert code == 0 and isinstance(out, dict), out
    assert out["accepted_by"] == DIRECTOR[0]
    assert (out["loss"]["lost_cards"], out["loss"]["lost_visits"]) == (1, 1)
    assert _admit(desk, 34567890, monkeypatch) == 3  # card 2 is never issued twice
    _sign_in(monkeypatch, DIRECTOR)
    code, out = cli("audit", "verify", data_dir=desk)
    assert code == 0, out


def test_the_newest_backup_on_a_new_machine_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)
    _admit(desk, 12345678, monkeypatch)
    _sign_in(monkeypatch, DIRECTOR)
    copy = tmp_path / "copy.db"
    assert cli("backup", "--out", str(copy), data_dir=desk)[0] == 0
    new_machine = tmp_path / "new-machine"
    new_machine.mkdir()
    shutil.copy2(desk / "visitors.db.audit-key", new_machine / "visitors.db.audit-key")
    code, out = _restore(copy, new_machine)
    assert code == 0 and isinstance(out, dict), out
    assert out["loss"] is None and out["accepted_by"] is None


def test_a_leftover_restore_copy_is_gone_after_the_next_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)
    leftover = desk / ".visitors.db.restore.0badf00d.tmp"
    leftover.write_bytes(os.urandom(1 << 20))  # what a SIGKILL leaves
    (desk / ".visitors.db.restore.0badf00d.tmp-wal").write_bytes(b"wal")
    _sign_in(monkeypatch, DIRECTOR)
    code, out = cli("audit", "verify", data_dir=desk)
    assert code == 0, out
    assert sorted(n for n in os.listdir(desk) if ".restore." in n) == []


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("folder", "BACKUP_NOT_FOUND"),
        ("x" * 300, "BACKUP_NOT_FOUND"),  # a name over 255 bytes
        ("/dev/null", "BACKUP_NOT_FOUND"),  # a device node
        ("", "BACKUP_NOT_FOUND"),
        ("missing.db", "BACKUP_NOT_FOUND"),
        ("text.db", "CORRUPT_FILE"),  # not a visitor file
        ("live-junk.db", "WRONG_KEY"),  # a -wal beside junk: read through SQLite, refused
        # a chain of ".." (inside the scratch folder: the test reaches nothing outside it)
        ("deep/a/b/../../../text.db", "CORRUPT_FILE"),  # read, never written
    ],
)
def test_a_hostile_source_answers_a_code_and_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, code: str
) -> None:
    monkeypatch.setenv("ADMISSION_AUDIT_KEY", "22" * 32)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "deep" / "a" / "b").mkdir(parents=True)
    (tmp_path / "text.db").write_text("not a visitor file\n" * 100)
    (tmp_path / "live-junk.db").write_bytes(os.urandom(8192))
    (tmp_path / "live-junk.db-wal").write_bytes(os.urandom(4096))
    target = tmp_path / "new"
    exit_code, out = _restore(Path(source), target)
    assert exit_code == 3 and isinstance(out, dict) and out["error"] == code, out
    assert not target.exists()  # the folder the restore would have made is not left


def test_accepting_a_loss_needs_accounts_in_the_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    monkeypatch.setenv("ADMISSION_AUDIT_KEY", "22" * 32)
    copy = tmp_path / "old.db"
    assert cli("backup", "--out", str(copy), data_dir=desk)[0] == 0  # no account yet
    assert cli("backup", "--out", str(tmp_path / "new.db"), data_dir=desk)[0] == 0
    _lose_the_file(desk, tmp_path / "aside")
    code, out = _restore(copy, desk, "--accept-loss", "--director", DIRECTOR[0])
    assert code == 1 and isinstance(out, dict), out
    assert out["error"] == "DIRECTOR_ACCOUNT_REQUIRED"
    assert not (desk / "visitors.db").exists()
