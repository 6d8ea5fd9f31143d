"""A restore never goes back silently (art. 20.4; art. 23: one card number, one visitor).

A backup older than what the folder recorded - its record of the highest numbers issued
and of the audit head, the card PDFs, a newer backup in its list - is refused with what
it would lose; accepted, the counters resume past every number ever issued and
FILE_RESTORED records the loss. A file in use is copied with its WAL, and temporary
copies nobody holds are swept. All on the real encrypted file."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.restore_loss import LossReason, RestoreLoss, RestoreLossError
from db.audit_key import ENV_VAR, AuditKey
from db.backup import backup
from db.issued import ISSUED_FILE, RECORD_BYTES, read_issued
from db.keys import DbKey
from db.restore import TEMP_PREFIX, assess, restore, sweep_leftovers
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook
from tests.db.factories import T0, dni, entry
from tests.db.test_offline_queue import new_voucher

AUDIT_KEY = AuditKey.generate(source="test")
DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def audit_key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, AUDIT_KEY.hex())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "desk"
    made.mkdir()
    return made


def _admit(store: SqlCipherStore, numbers: range) -> None:
    for n in numbers:
        assert store.record_admission(entry(n)).card_number is not None


def _lose_the_file(folder: Path) -> Path:
    """The disk lost the file: the operator moves it and its marker aside (docs/backup.md),
    the rest of the folder stays."""
    aside = folder.parent / "aside"
    aside.mkdir()
    for name in os.listdir(folder):
        if name.startswith("visitors.db"):
            shutil.move(str(folder / name), str(aside / name))
    return aside


def _older_backup(folder: Path, key: DbKey, clock: FixedClock, out: Path) -> None:
    """3 admissions and a voucher, the backup, then 2 more admissions and 2 vouchers."""
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 4))
        book = StoreVoucherBook(store)
        book.issue_voucher(new_voucher(1))
        backup(store, out, now=T0)
        _admit(store, range(4, 6))
        book.issue_voucher(new_voucher(2))
        book.issue_voucher(new_voucher(3))


def _leftovers(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(".") or n.endswith(".tmp"))


def test_an_older_backup_is_refused_with_what_it_would_lose(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    out = tmp_path / "old.db"
    _older_backup(folder, key, clock, out)
    _lose_the_file(folder)
    record = (folder / ISSUED_FILE).read_bytes()
    with pytest.raises(RestoreLossError) as refused:
        restore(out, folder, key)
    loss = refused.value.loss
    assert refused.value.code == "RESTORE_LOSES_DATA"
    assert (loss.cards, loss.visits, loss.vouchers) == (2, 2, 2)
    assert loss.audit_entries > 0
    assert LossReason.ISSUED_RECORD in loss.reasons and LossReason.AUDIT_HEAD in loss.reasons
    assert (loss.card_resumes_at, loss.voucher_resumes_at) == (6, 4)
    # nothing was restored and nothing was left
    assert sorted(os.listdir(folder)) == ["backups.json", ISSUED_FILE]
    assert (folder / ISSUED_FILE).read_bytes() == record


def test_an_accepted_loss_resumes_past_every_number_and_is_audited(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    out = tmp_path / "old.db"
    _older_backup(folder, key, clock, out)
    _lose_the_file(folder)
    seen: list[RestoreLoss] = []

    def director(loss: RestoreLoss, copy: SqlCipherStore) -> str:
        seen.append(loss)
        return "jefa"

    info = restore(out, folder, key, accept_loss=director, now=T0 + DAY)
    assert info.accepted_by == "jefa" and info.loss == seen[0]
    with SqlCipherStore.open(folder / "visitors.db", key, create=False, clock=clock) as store:
        last = store.audit_entries(0, 10_000)[-1]
        assert (last.actor, last.action) == ("jefa", "FILE_RESTORED")
        assert last.details["lost_cards"] == "2" and last.details["lost_visits"] == "2"
        assert last.details["lost_vouchers"] == "2" and last.details["accepted_by"] == "jefa"
        assert store.find_visitor(dni(4)) is None  # the loss is real
        assert store.record_admission(entry(40)).card_number == 6  # never 4 or 5 again
        assert StoreVoucherBook(store).issue_voucher(new_voucher(40)).number == 4  # not 2
        assert store.verify().ok
    # the record beside the file starts over from the restored file
    record = read_issued(folder)
    assert record is not None and record.highs.card == 6 and record.highs.voucher == 4


def test_the_newest_backup_restores_without_a_question(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    out = tmp_path / "new.db"
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 4))
        backup(store, out, now=T0)  # its own BACKUP entry follows: not a loss
    _lose_the_file(folder)
    info = restore(out, folder, key)
    assert info.loss is None and info.accepted_by == ""
    with SqlCipherStore.open(folder / "visitors.db", key, create=False) as store:
        assert store.record_admission(entry(9)).card_number == 4


def test_card_pdfs_and_a_newer_backup_count_without_the_record(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 3))
        backup(store, old, now=T0)
        backup(store, new, now=T0 + DAY)
    _lose_the_file(folder)
    (folder / ISSUED_FILE).unlink()  # the record is gone too
    cards = folder / "cards"
    cards.mkdir()
    (cards / "card-7.pdf").write_bytes(b"%PDF-1.4")
    (cards / "card-3-2.pdf").write_bytes(b"%PDF-1.4")
    with pytest.raises(RestoreLossError) as refused:
        restore(old, folder, key, card_folders=[cards])
    loss = refused.value.loss
    assert set(loss.reasons) == {LossReason.NEWER_CARD_PDF, LossReason.NEWER_BACKUP}
    assert loss.cards == 5 and loss.card_resumes_at == 8
    assert loss.newest_backup.startswith((T0 + DAY).date().isoformat())
    restore(old, folder, key, card_folders=[cards], accept_loss=lambda loss, copy: "jefa")
    with SqlCipherStore.open(folder / "visitors.db", key, create=False) as store:
        assert store.record_admission(entry(9)).card_number == 8  # card-7.pdf is not reprinted


def test_a_backup_of_another_file_loses_all_the_folder_held(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    out = tmp_path / "other.db"
    with SqlCipherStore.open(other_folder / "visitors.db", key, clock=clock) as other:
        _admit(other, range(1, 2))
        backup(other, out, now=T0)
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 4))
    _lose_the_file(folder)
    with pytest.raises(RestoreLossError) as refused:
        restore(out, folder, key)
    assert LossReason.OTHER_FILE in refused.value.loss.reasons
    assert (refused.value.loss.cards, refused.value.loss.visits) == (3, 3)


def test_a_live_file_is_copied_with_what_is_still_in_its_wal(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as live:
        live.connection.execute("PRAGMA wal_autocheckpoint = 0")  # keep the WAL
        live.checkpoint()
        _admit(live, range(1, 4))
        wal = folder / "visitors.db-wal"
        assert wal.stat().st_size > 0  # the three admissions are only in the WAL
        main_file = (folder / "visitors.db").read_bytes()
        info = restore(folder / "visitors.db", tmp_path / "elsewhere", key)
        assert (folder / "visitors.db").read_bytes() == main_file  # the source was not written
    with SqlCipherStore.open(tmp_path / "elsewhere" / "visitors.db", key, create=False) as copy:
        for n in (1, 2, 3):
            assert copy.find_visitor(dni(n)) is not None
        assert copy.verify().ok
    assert info.live_source
    assert _leftovers(tmp_path / "elsewhere") == []


def test_the_sweep_removes_what_nobody_holds_and_keeps_a_running_restore(
    folder: Path,
) -> None:
    dead = folder / f"{TEMP_PREFIX}dead0001.tmp"
    dead.write_bytes(b"x" * 4096)
    (folder / f"{TEMP_PREFIX}dead0001.tmp-wal").write_bytes(b"w")
    (folder / f"{TEMP_PREFIX}gone0002.tmp-shm").write_bytes(b"s")
    (folder / ".visitors.db.marker.999999999.tmp").write_text("{}")
    running = folder / f"{TEMP_PREFIX}live0003.tmp"
    fd = os.open(running, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a restore in progress holds it
    try:
        removed = sweep_leftovers(folder)
        assert sorted(removed) == sorted(
            [
                dead.name,
                f"{TEMP_PREFIX}dead0001.tmp-wal",
                f"{TEMP_PREFIX}gone0002.tmp-shm",
                ".visitors.db.marker.999999999.tmp",
            ]
        )
        assert os.listdir(folder) == [running.name]
    finally:
        os.close(fd)
    assert sweep_leftovers(folder) == [running.name]
    assert os.listdir(folder) == []


def test_the_record_follows_every_write_and_catches_up_at_open(
    folder: Path, key: DbKey, clock: FixedClock
) -> None:
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 3))
        StoreVoucherBook(store).issue_voucher(new_voucher(1))
        record = read_issued(folder)
        assert record is not None and record.file_id == store.file_id
        assert (record.highs.card, record.highs.voucher, record.highs.visit) == (2, 1, 2)
        assert record.highs.audit_seq == store.audit_entries(0, 1000)[-1].seq
    text = json.loads((folder / ISSUED_FILE).read_text("utf-8"))
    assert set(text) >= {"file_id", "card", "voucher", "visit", "audit_seq", "audit_digest"}
    (folder / ISSUED_FILE).unlink()  # a record lost (or a process killed before it)
    with SqlCipherStore.open(folder / "visitors.db", key, create=False):
        pass
    caught_up = read_issued(folder)
    assert caught_up is not None and caught_up.highs == record.highs


def test_the_record_is_rewritten_in_place_and_never_follows_a_link_or_a_pipe(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    record = folder / ISSUED_FILE
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 2))
        inode = record.stat().st_ino
        _admit(store, range(2, 3))
        assert record.stat().st_ino == inode  # one pwrite, no rename per admission
        assert record.stat().st_size == RECORD_BYTES
        elsewhere = tmp_path / "elsewhere.txt"
        elsewhere.write_text("untouched")
        record.unlink()
        record.symlink_to(elsewhere)
        _admit(store, range(3, 4))
        assert elsewhere.read_text() == "untouched" and not record.is_symlink()
        record.unlink()
        os.mkfifo(record)  # a write on a pipe without a reader would hang the desk
        _admit(store, range(4, 5))
        assert record.is_file()
    found = read_issued(folder)
    assert found is not None and found.highs.card == 4


def test_two_restores_into_one_folder_at_once_leave_one_whole_file(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path
) -> None:
    out = tmp_path / "copy.db"
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 3))
        backup(store, out, now=T0)
    target = tmp_path / "target"
    target.mkdir()
    answers: list[str] = []

    def run() -> None:
        try:
            restore(out, target, key)
            answers.append("restored")
        except StoreError as refused:
            answers.append(str(refused.code))

    workers = [threading.Thread(target=run) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(answers) == ["RESTORE_FILE_EXISTS", "RESTORE_FILE_EXISTS", "restored"]
    assert _leftovers(target) == []
    with SqlCipherStore.open(target / "visitors.db", key, create=False) as restored:
        assert restored.verify().ok and restored.find_visitor(dni(2)) is not None


def test_a_restore_another_one_finished_under_it_answers_the_file_exists(
    folder: Path, key: DbKey, clock: FixedClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loser of two restores at once, in its worst order: the winner is put in place
    after the loser found the folder empty and before it weighs what the folder held.
    The winner's own record (its FILE_RESTORED, its raised head) is no data the backup
    would lose: the loser says the file exists."""
    out = tmp_path / "copy.db"
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        _admit(store, range(1, 3))
        backup(store, out, now=T0)
    target = tmp_path / "target"
    target.mkdir()

    def the_winner_first(*args: Any, **kwargs: Any) -> RestoreLoss:
        monkeypatch.setattr("db.restore.assess", assess)
        restore(out, target, key)  # the winner, whole, while the loser holds its copy
        return assess(*args, **kwargs)

    monkeypatch.setattr("db.restore.assess", the_winner_first)
    with pytest.raises(StoreError) as refused:
        restore(out, target, key)
    assert refused.value.code == "RESTORE_FILE_EXISTS"
    assert _leftovers(target) == []
    with SqlCipherStore.open(target / "visitors.db", key, create=False) as restored:
        assert restored.verify().ok and restored.find_visitor(dni(2)) is not None
