"""Damage is found and named (art. 20.4: the visitor file is a legal record).

Real SQLCipher files: bytes overwritten in random pages are found when the file opens
or by the integrity check, before the next write; a damaged file takes no writes and is
still read; a read-only disk and a full disk have their own codes, and a full disk
leaves no half-recorded admission."""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlcipher3

from admission.clock import FixedClock
from admission.errors import StoreError, StoreErrorCode
from admission.records import IntegrityReport
from db import integrity
from db.connection import error_code
from db.file_guard import read_marker
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import T0, dni, entry

PAGE = 4096
VISITORS = 150


def make_file(path: Path, key: DbKey, visitors: int = VISITORS) -> None:
    with SqlCipherStore.create(path, key, clock=FixedClock(T0)) as store:
        store.secret("card_code")
        for n in range(1, visitors + 1):
            store.record_admission(entry(n))


def overwrite(path: Path, rng: random.Random, pages: list[int]) -> None:
    """Random bytes at a random place of each page (1-based page numbers)."""
    data = bytearray(path.read_bytes())
    for page in pages:
        at = (page - 1) * PAGE + rng.randrange(16 if page == 1 else 0, PAGE - 8)
        data[at : at + 8] = rng.randbytes(8)
    path.write_bytes(bytes(data))


def state_of(store: SqlCipherStore) -> tuple[int, int, int]:
    conn = store.connection
    visits = conn.execute("SELECT count(*) FROM visits").fetchone()[0]
    cards = [r[0] for r in conn.execute("SELECT number FROM cards ORDER BY number")]
    assert cards == list(range(1, len(cards) + 1))  # gapless
    return visits, len(cards), store.last_card_number()


@pytest.mark.parametrize("seed", range(6))
def test_random_damage_is_found_at_open_and_stops_writes(
    tmp_path: Path, key: DbKey, seed: int
) -> None:
    path = tmp_path / "visitors.db"
    make_file(path, key)
    rng = random.Random(seed)
    total = path.stat().st_size // PAGE
    hit = sorted(rng.sample(range(2, total + 1), rng.randint(1, 3)))
    overwrite(path, rng, hit)
    try:
        opened = SqlCipherStore.open(path, key, create=False)
    except StoreError as refusal:
        # a page where the tables are listed: nothing can be read, the open is refused
        assert refusal.code == "DAMAGED_FILE" and f"page(s) {hit[0]}" in str(refusal)
        return
    with opened as store:
        assert store.damaged and store.damaged_pages == tuple(hit)
        with pytest.raises(StoreError) as err:
            store.record_admission(entry(VISITORS + 1))
        assert err.value.code == "DAMAGED_FILE"
        with pytest.raises(StoreError) as err:
            store.purge(T0)
        assert err.value.code == "DAMAGED_FILE"
        report = store.integrity_check()
        assert not report.ok and report.bad_pages == tuple(hit) and report.pages == total
    marker = read_marker(path)
    assert marker is not None and marker.damaged_pages == tuple(hit)  # the next run knows


def test_a_damaged_file_is_still_read_for_extraction(tmp_path: Path, key: DbKey) -> None:
    path = tmp_path / "visitors.db"
    make_file(path, key)
    with SqlCipherStore.open(path, key) as store:
        table_root = store.connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'observations'"
        ).fetchone()[0]
    overwrite(path, random.Random(1), [table_root])  # a page no read below needs
    with SqlCipherStore.open(path, key, create=False) as store:
        assert store.damaged_pages == (table_root,)
        found = store.find_visitor(dni(7))
        assert found is not None and found.surname == "Peña Núñez"
        assert store.secret("card_code")  # cards stay verifiable
        with pytest.raises(StoreError) as err:
            store.secret("a new secret")
        assert err.value.code == "DAMAGED_FILE"


def test_damage_past_the_open_check_is_found_before_the_next_write(
    tmp_path: Path, key: DbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file bigger than the open check's limit is checked daily at the purge; every
    page a query reads is checked by SQLCipher anyway."""
    path = tmp_path / "visitors.db"
    make_file(path, key)
    monkeypatch.setattr(integrity, "OPEN_CHECK_MAX_BYTES", 0)
    with SqlCipherStore.open(path, key) as store:
        visits_root = store.connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'visits'"
        ).fetchone()[0]
    overwrite(path, random.Random(2), [visits_root])
    with SqlCipherStore.open(path, key, create=False) as store:
        assert not store.damaged  # not checked at open: too big (by the patched limit)
        with pytest.raises(StoreError) as err:
            store.purge(T0)  # the daily full check comes first
        assert err.value.code == "DAMAGED_FILE" and store.damaged_pages == (visits_root,)
    with SqlCipherStore.open(path, key, create=False) as store:  # the marker remembers
        assert store.damaged


def test_a_read_that_meets_damage_names_it_and_stops_writes(
    tmp_path: Path, key: DbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "visitors.db"
    make_file(path, key)
    with SqlCipherStore.open(path, key) as store:
        visits_root = store.connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'visits'"
        ).fetchone()[0]
    overwrite(path, random.Random(3), [visits_root])
    monkeypatch.setattr(integrity, "OPEN_CHECK_MAX_BYTES", 0)
    with SqlCipherStore.open(path, key, create=False) as store:
        with pytest.raises(StoreError) as err:
            store.visits(1)
        assert err.value.code == "DAMAGED_FILE" and store.damaged
        with pytest.raises(StoreError) as err:
            store.record_admission(entry(VISITORS + 1))
        assert err.value.code == "DAMAGED_FILE"


def test_a_whole_copy_put_back_takes_writes_again(tmp_path: Path, key: DbKey) -> None:
    path = tmp_path / "visitors.db"
    make_file(path, key)
    whole = path.read_bytes()
    overwrite(path, random.Random(4), [3])
    with SqlCipherStore.open(path, key, create=False) as store:
        assert store.damaged
    path.write_bytes(whole)  # the backup copy of the same file
    with SqlCipherStore.open(path, key, create=False) as store:
        assert not store.damaged
        assert store.record_admission(entry(VISITORS + 1)).card_number == VISITORS + 1
    marker = read_marker(path)
    assert marker is not None and not marker.damaged


def test_every_open_checks_a_file_under_the_limit(tmp_path: Path, key: DbKey) -> None:
    """Its cost is measured in db/integrity.py (20,000 visitors: ~0.1 s)."""
    path = tmp_path / "visitors.db"
    make_file(path, key, visitors=10)
    calls: list[int] = []
    real = integrity.check

    def counting(*args: object, **kwargs: object) -> IntegrityReport:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(integrity, "check", counting)
        SqlCipherStore.open(path, key, create=False).close()
    assert calls == [1]


# -- the disk: read-only and full ---------------------------------------------------------


def _run(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True)


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    where.mkdir()
    try:
        _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where))
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    try:
        yield where
    finally:
        _run("umount", "-l", str(where))


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """The folder turns read-only: a read-only remount as root, file modes otherwise."""
    if os.geteuid() == 0:
        _run("mount", "-o", "remount,ro", str(folder))
        try:
            yield
        finally:
            _run("mount", "-o", "remount,rw", str(folder))
        return
    files = [folder, *folder.iterdir()]
    for item in files:
        item.chmod(0o500 if item.is_dir() else 0o400)
    try:
        yield
    finally:
        for item in files:
            item.chmod(0o700 if item.is_dir() else 0o600)


def test_a_read_only_folder_is_read_only_disk(tmp_path: Path, key: DbKey) -> None:
    folder = tmp_path / "disk"
    with contextlib.ExitStack() as stack:
        if os.geteuid() == 0:
            stack.enter_context(tmpfs(folder, "8m"))
        else:
            folder.mkdir()
        path = folder / "visitors.db"
        make_file(path, key, visitors=3)
        with read_only(folder):
            with pytest.raises(StoreError) as err:
                SqlCipherStore.open(path, key, create=False)
            assert err.value.code == "READ_ONLY_DISK"
            with pytest.raises(StoreError) as err:
                SqlCipherStore.create(folder / "other.db", key)
            assert err.value.code == "READ_ONLY_DISK"


def test_sqlite_result_codes_become_the_store_codes(tmp_path: Path, key: DbKey) -> None:
    """SQLITE_READONLY and SQLITE_FULL as SQLite raises them, without root: a read-only
    connection, and a file held to its page count (``PRAGMA max_page_count``)."""
    path = tmp_path / "visitors.db"
    make_file(path, key, visitors=3)
    reader = sqlcipher3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        reader.execute(f"PRAGMA key = {key.pragma_value()}")
        with pytest.raises(sqlcipher3.DatabaseError) as raised:
            reader.execute("DELETE FROM visits")
        assert error_code(raised.value, StoreErrorCode.WRITE_FAILED) is (
            StoreErrorCode.READ_ONLY_DISK
        )
    finally:
        reader.close()
    with SqlCipherStore.open(path, key, create=False) as store:
        pages = store.connection.execute("PRAGMA page_count").fetchone()[0]
        store.connection.execute(f"PRAGMA max_page_count = {pages}")
        recorded, error = 3, None
        for n in range(4, 5000):
            try:
                store.record_admission(entry(n, surname=f"Lleno {n} " + "x" * 400))
            except StoreError as exc:
                error = exc
                break
            recorded += 1
        assert error is not None and error.code == "DISK_FULL"
        assert state_of(store) == (recorded, recorded, recorded)  # nothing half-written


def test_a_full_disk_is_disk_full_and_leaves_no_half_admission(tmp_path: Path, key: DbKey) -> None:
    with tmpfs(tmp_path / "disk", "2m") as folder:
        path = folder / "visitors.db"
        make_file(path, key, visitors=3)
        recorded = 3
        with SqlCipherStore.open(path, key, create=False) as store:
            error: StoreError | None = None
            for n in range(4, 10_000):
                try:
                    store.record_admission(entry(n, surname=f"Lleno {n} " + "x" * 400))
                except StoreError as exc:
                    error = exc
                    break
                recorded += 1
            assert error is not None and error.code == "DISK_FULL", error
            assert state_of(store) == (recorded, recorded, recorded)
            assert store.find_visitor(dni(recorded + 1)) is None
            assert not store.damaged
        with SqlCipherStore.open(path, key, create=False) as store:  # after a restart
            assert state_of(store) == (recorded, recorded, recorded)
