"""Backups of the visitor file and restoring one in a new folder (art. 20.4): the copy is
encrypted, taken while another desk writes, and a restore never overwrites a file,
refuses a wrong key or another casino's copy, and leaves the folder as it was when it
refuses."""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from admission.atomic_file import OutputCode, OutputError
from admission.clock import FixedClock
from admission.errors import StoreError
from db import backup as backup_module
from db.audit_key import ENV_VAR, AuditKey
from db.backup import BACKUP_LIST, BackupCode, backup, stale_backups
from db.keys import DbKey
from db.restore import restore
from db.store import SqlCipherStore
from tests.db.factories import T0, dni, entry

AUDIT_KEY = AuditKey.generate(source="test")
DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def audit_key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The desk's audit key source, the same for the desk and the restore."""
    monkeypatch.setenv(ENV_VAR, AUDIT_KEY.hex())


@pytest.fixture
def desk(tmp_path: Path, key: DbKey, clock: FixedClock) -> Iterator[SqlCipherStore]:
    folder = tmp_path / "desk"
    folder.mkdir()
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        for n in (1, 2, 3):
            store.record_admission(entry(n))
        yield store


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_the_copy_is_encrypted_and_restores_with_visitors_cards_and_chain(
    desk: SqlCipherStore, key: DbKey, tmp_path: Path
) -> None:
    out = tmp_path / "media" / "copy.db"
    out.parent.mkdir()
    info = backup(desk, out, casino_id="CAS1", actor="jefa", now=T0)
    assert info.size == out.stat().st_size > 0
    assert _files(out.parent) == ["copy.db"]  # no temporary file left
    # unreadable without the key: neither plain SQLite nor SQLCipher without a key
    assert not out.read_bytes().startswith(b"SQLite format 3")
    import sqlcipher3

    bare = sqlcipher3.connect(str(out))
    with pytest.raises(sqlcipher3.DatabaseError):
        bare.execute("SELECT count(*) FROM sqlite_master").fetchone()
    bare.close()
    # the desk audited the backup, by the target's name only
    last = desk.audit_entries(0, 1000)[-1]
    assert (last.actor, last.action) == ("jefa", "BACKUP")
    assert str(out.parent) not in json.dumps(last.details)

    target = tmp_path / "new-machine"
    restored = restore(out, target, key, casino_id="CAS1", actor="jefa", now=T0 + DAY)
    assert restored.file_id == desk.file_id and restored.casino_id == "CAS1"
    assert "visitors.db.marker" in _files(target)
    with SqlCipherStore.open(target / "visitors.db", key, create=False) as copy:
        for n in (1, 2, 3):
            assert copy.find_visitor(dni(n)) is not None
        assert copy.card(1) is not None and copy.card(3) is not None
        check = copy.verify()
        assert check.ok, check
        assert copy.integrity_check(structure=True).ok
        assert copy.audit_entries(0, 1000)[-1].action == "FILE_RESTORED"


def test_a_backup_while_another_connection_writes(
    desk: SqlCipherStore, key: DbKey, tmp_path: Path
) -> None:
    assert desk.path is not None
    other = SqlCipherStore.open(desk.path, key, create=False)
    stop = threading.Event()
    written: list[int] = []

    def write() -> None:
        n = 100
        while not stop.is_set():
            other.record_admission(entry(n))
            written.append(n)
            n += 1

    worker = threading.Thread(target=write)
    worker.start()
    try:
        outs = [tmp_path / f"copy{i}.db" for i in range(3)]
        for out in outs:
            backup(desk, out)
    finally:
        stop.set()
        worker.join()
        other.close()
    assert written
    for i, out in enumerate(outs):
        restore(out, tmp_path / f"restored{i}", key)
        with SqlCipherStore.open(tmp_path / f"restored{i}" / "visitors.db", key, create=False) as s:
            assert s.verify().ok  # one snapshot: the chain and its rows agree


def test_a_wrong_key_is_refused_and_the_folder_is_untouched(
    desk: SqlCipherStore, tmp_path: Path
) -> None:
    out = tmp_path / "copy.db"
    backup(desk, out)
    target = tmp_path / "new"
    target.mkdir()
    with pytest.raises(StoreError) as err:
        restore(out, target, DbKey.generate())
    assert err.value.code == "WRONG_KEY"
    assert _files(target) == []
    with pytest.raises(StoreError):
        restore(out, tmp_path / "never-made", DbKey.from_passphrase("wrong"))
    assert not (tmp_path / "never-made").exists()


def test_another_casinos_backup_is_refused(
    desk: SqlCipherStore, key: DbKey, tmp_path: Path
) -> None:
    out = tmp_path / "copy.db"
    backup(desk, out, casino_id="CAS1")
    target = tmp_path / "new"
    with pytest.raises(StoreError) as err:
        restore(out, target, key, casino_id="CAS2")
    assert err.value.code is BackupCode.BACKUP_OTHER_CASINO
    assert _files(target) == []


def test_a_restore_never_overwrites_the_file_in_use(
    desk: SqlCipherStore, key: DbKey, tmp_path: Path
) -> None:
    out = tmp_path / "copy.db"
    backup(desk, out)
    desk.record_admission(entry(4))
    assert desk.path is not None
    before = {name: (desk.path.parent / name).read_bytes() for name in _files(desk.path.parent)}
    with pytest.raises(StoreError) as err:
        restore(out, desk.path.parent, key)
    assert err.value.code is BackupCode.RESTORE_FILE_EXISTS
    after = {name: (desk.path.parent / name).read_bytes() for name in _files(desk.path.parent)}
    assert after == before
    assert desk.find_visitor(dni(4)) is not None


def test_a_restore_without_the_audit_key_is_refused(
    desk: SqlCipherStore, key: DbKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "copy.db"
    backup(desk, out)
    monkeypatch.delenv(ENV_VAR)
    target = tmp_path / "new"
    with pytest.raises(StoreError) as err:
        restore(out, target, key)
    assert err.value.code == "AUDIT_KEY_LOST"  # a keyed copy: its key is restored, not made
    assert _files(target) == []


def test_a_failed_write_leaves_no_partial_file(
    desk: SqlCipherStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    media = tmp_path / "media"
    media.mkdir()

    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(backup_module, "fsync_file", full)
    with pytest.raises(StoreError) as err:
        backup(desk, media / "copy.db")
    assert err.value.code is BackupCode.BACKUP_WRITE_FAILED
    assert _files(media) == []
    desk.record_admission(entry(5))  # the desk keeps working


def test_a_read_only_target_folder_is_a_clear_code(
    desk: SqlCipherStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-medium" / "copy.db"  # unmounted medium: no folder
    with pytest.raises(OutputError) as refused:
        backup(desk, missing)
    assert refused.value.code is OutputCode.OUTPUT_NO_FOLDER
    media = tmp_path / "ro"
    media.mkdir()
    real_open = os.open

    def read_only(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        if flags & os.O_CREAT:  # the medium turned read-only (root ignores folder modes)
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(StoreError) as err:
        backup(desk, media / "copy.db")
    monkeypatch.undo()
    assert err.value.code is BackupCode.BACKUP_WRITE_FAILED
    assert "Read-only" in str(err.value)
    assert _files(media) == []


def test_a_backup_overwrites_a_file_only_when_forced(desk: SqlCipherStore, tmp_path: Path) -> None:
    out = tmp_path / "copy.db"
    out.write_bytes(b"older")
    with pytest.raises(OutputError) as refused:
        backup(desk, out)
    assert refused.value.code is OutputCode.OUTPUT_EXISTS
    assert out.read_bytes() == b"older"
    backup(desk, out, force=True)
    assert out.read_bytes()[:6] != b"older" and out.stat().st_mode & 0o077 == 0
    assert desk.path is not None  # the list of backups beside the file: the owner's only
    assert (desk.path.parent / "backups.json").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("name", ["visitors.db", "visitors.db-wal", "visitors.db.marker"])
def test_a_backup_never_goes_over_the_visitor_file_even_forced(
    desk: SqlCipherStore, name: str
) -> None:
    assert desk.path is not None
    target = desk.path.parent / name
    before = target.read_bytes() if target.exists() else None
    with pytest.raises(OutputError) as refused:
        backup(desk, target, force=True)
    assert refused.value.code is OutputCode.OUTPUT_PROTECTED
    assert (target.read_bytes() if target.exists() else None) == before
    desk.record_admission(entry(7))  # the file is whole and working


def test_a_backup_name_over_255_bytes_is_a_code(desk: SqlCipherStore, tmp_path: Path) -> None:
    with pytest.raises(OutputError) as refused:
        backup(desk, tmp_path / ("b" * 256))
    assert refused.value.code is OutputCode.OUTPUT_NAME_TOO_LONG
    # a name of 250 bytes is a name: the temporary file beside it is short
    done = backup(desk, tmp_path / ("b" * 250))
    assert done.path.name == "b" * 250 and done.size > 0


def test_known_backups_older_than_six_months_are_stale(
    desk: SqlCipherStore, tmp_path: Path
) -> None:
    old, recent = tmp_path / "old.db", tmp_path / "recent.db"
    backup(desk, old, now=T0)
    backup(desk, recent, now=T0 + 150 * DAY)
    assert desk.path is not None
    folder = desk.path.parent
    listed = json.loads((folder / BACKUP_LIST).read_text("utf-8"))
    assert len(listed["backups"]) == 2
    assert stale_backups(folder, T0 + 100 * DAY) == []
    stale = stale_backups(folder, T0 + 200 * DAY)
    assert [b.path.name for b in stale] == ["old.db"]
    old.unlink()  # destroyed: no longer a warning
    assert stale_backups(folder, T0 + 200 * DAY) == []
