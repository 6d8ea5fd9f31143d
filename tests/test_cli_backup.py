"""``backup --out FILE`` and ``restore FILE`` on the command line (art. 20.4: the file
must outlive its disk), run as operators do through ``main.run`` over a real encrypted
file; and ``purge`` names the known backups past retention."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.test_cli import (
    ADMIN,
    DIRECTOR,
    cli,
    create_accounts,
    dni,
    import_register,
    spanish_dni_mrz,
)
from tests.test_cli import quick_sign_in as quick_sign_in  # autouse here too


def _admit_one(data_dir: Path) -> int:
    snapshot = data_dir.parent / "riaj.txt"
    snapshot.write_text(f"# RIAJ casino scope\n{dni(11111111)}\n", encoding="utf-8")
    code, out = import_register(snapshot, data_dir)
    assert code == 0, out
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(12345678), data_dir=data_dir)
    assert code == 0 and isinstance(out, dict), out
    return int(out["card_number"])


def _copy_audit_key(source: Path, target: Path) -> None:
    """The audit key does not travel with a backup (docs/backup.md): here it is the key
    file beside the visitor file, copied by hand as the documentation says."""
    target.mkdir(parents=True, exist_ok=True)
    key_file = source / "visitors.db.audit-key"
    if key_file.exists():
        shutil.copy2(key_file, target / key_file.name)


def test_a_backup_restored_in_a_new_folder_holds_the_visits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)
    card = _admit_one(desk)
    monkeypatch.setenv("ADMISSION_USER", DIRECTOR[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    copy = tmp_path / "medium" / "visitors-backup.db"
    copy.parent.mkdir()
    code, out = cli("backup", "--out", str(copy), data_dir=desk)
    assert code == 0, out
    assert isinstance(out, dict) and out["bytes"] == copy.stat().st_size > 0
    assert not copy.read_bytes().startswith(b"SQLite format 3")  # encrypted

    new_machine = tmp_path / "new-machine"
    _copy_audit_key(desk, new_machine)
    code, out = cli("restore", str(copy), "--data-dir", str(new_machine))
    assert code == 0, out
    assert isinstance(out, dict) and out["audit_entries"] > 0
    # the director reads it (an administrator reads no visitor: ui.cli.access)
    code, out = cli("visitor", "show", dni(12345678), data_dir=new_machine)
    assert code == 0, out  # the visitor and the card are in the restored file
    assert isinstance(out, dict) and out["identity"] == f"DNI:ESP:{dni(12345678)}"
    assert [v["card_number"] for v in out["visits"]] == [card]
    code, out = cli("audit", "verify", data_dir=new_machine)
    assert code == 0, out


def test_restore_never_replaces_the_file_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)
    _admit_one(desk)
    monkeypatch.setenv("ADMISSION_USER", ADMIN[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    copy = tmp_path / "copy.db"
    assert cli("backup", "--out", str(copy), data_dir=desk)[0] == 0
    before = (desk / "visitors.db").read_bytes()
    code, out = cli("restore", str(copy), "--data-dir", str(desk))
    assert code == 3, out
    assert isinstance(out, dict) and out["error"] == "RESTORE_FILE_EXISTS"
    assert (desk / "visitors.db").read_bytes() == before


def test_a_clerk_takes_no_backup_and_an_existing_target_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)  # the clerk is signed in
    copy = tmp_path / "copy.db"
    code, out = cli("backup", "--out", str(copy), data_dir=desk)
    assert code == 1 and isinstance(out, dict) and out["error"] == "BACKUP_ROLE_REQUIRED"
    assert not copy.exists()
    monkeypatch.setenv("ADMISSION_USER", ADMIN[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    copy.write_bytes(b"something else")
    code, out = cli("backup", "--out", str(copy), data_dir=desk)
    assert code != 0 and isinstance(out, dict) and out["error"] == "OUTPUT_EXISTS"
    assert copy.read_bytes() == b"something else"


def test_purge_names_a_known_backup_past_retention(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = tmp_path / "desk"
    create_accounts(desk, monkeypatch)
    monkeypatch.setenv("ADMISSION_USER", ADMIN[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    copy = tmp_path / "old.db"
    assert cli("backup", "--out", str(copy), data_dir=desk)[0] == 0
    code, out = cli("purge", data_dir=desk)
    assert code == 0 and isinstance(out, dict) and out["warnings"] == []
    # the list the backup command keeps says when each copy was taken: make it old
    listing = desk / "backups.json"
    text = listing.read_text()
    year = str(datetime.now(UTC).year)
    listing.write_text(text.replace(f'"{year}-', '"2020-'))
    code, out = cli("purge", data_dir=desk)
    assert code == 0 and isinstance(out, dict)
    assert [w["code"] for w in out["warnings"]] == ["STALE_BACKUP"]
    assert out["warnings"][0]["path"].endswith("old.db")
