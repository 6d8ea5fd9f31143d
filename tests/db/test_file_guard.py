"""The visitor file never silently starts over (art. 20.4): the folder's marker names
the file it holds; a missing, emptied or replaced file is refused with its own code and
nothing is created; a wrong key is told apart from a damaged first page."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from admission.errors import StoreError, WrongKeyError
from db.file_guard import FILE_ID_SETTING, marker_path, read_marker
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import dni, entry

PAGE = 4096


def snapshot(directory: Path) -> dict[str, str]:
    files = sorted(p for p in directory.iterdir() if p.is_file())
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def make_file(path: Path, key: DbKey, visitors: int = 3) -> str:
    with SqlCipherStore.create(path, key) as store:
        for n in range(1, visitors + 1):
            store.record_admission(entry(n))
        return store.file_id


def refused(path: Path, key: DbKey, *, create: bool = True) -> str:
    """The code of the refusal; the folder must be byte-for-byte as it was."""
    before = snapshot(path.parent)
    with pytest.raises(StoreError) as err:
        SqlCipherStore.open(path, key, create=create)
    assert snapshot(path.parent) == before, "a refused open changed the folder"
    return str(err.value.code)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "visitors.db"


def test_creation_writes_the_marker_with_the_file_id_and_no_personal_data(
    path: Path, key: DbKey
) -> None:
    file_id = make_file(path, key)
    marker = read_marker(path)
    assert marker is not None and marker.file_id == file_id and not marker.damaged
    assert marker.salt == path.read_bytes()[:16].hex()
    assert marker_path(path).stat().st_mode & 0o077 == 0
    text = marker_path(path).read_text("utf-8")
    assert "Peña" not in text and dni(1).text not in text and key.hex() not in text
    with SqlCipherStore.open(path, key, create=False) as store:
        assert store.file_id == file_id
        assert store.get_setting(FILE_ID_SETTING) == file_id  # the same id inside the file
        created = [e for e in store.audit_entries() if e.action == "FILE_CREATED"]
        assert [e.details["file_id"] for e in created] == [file_id]


def test_a_missing_file_is_refused_and_not_created_again(path: Path, key: DbKey) -> None:
    make_file(path, key)
    path.unlink()
    assert refused(path, key, create=True) == "FILE_MISSING"
    assert not path.exists()


def test_an_emptied_file_is_refused(path: Path, key: DbKey) -> None:
    make_file(path, key)
    path.write_bytes(b"")
    assert refused(path, key) == "FILE_EMPTIED"
    assert path.stat().st_size == 0


def test_another_visitor_file_in_its_place_is_refused(tmp_path: Path, key: DbKey) -> None:
    path, other = tmp_path / "visitors.db", tmp_path / "other" / "visitors.db"
    other.parent.mkdir()
    make_file(path, key)
    make_file(other, key)  # same key, another file (another id and salt)
    path.write_bytes(other.read_bytes())
    assert refused(path, key) == "FILE_REPLACED"


def test_another_encrypted_file_with_another_key_is_replaced_not_a_wrong_key(
    tmp_path: Path, key: DbKey
) -> None:
    path, other = tmp_path / "visitors.db", tmp_path / "other" / "visitors.db"
    other.parent.mkdir()
    make_file(path, key)
    make_file(other, DbKey.generate())
    path.write_bytes(other.read_bytes())
    assert refused(path, key) == "FILE_REPLACED"  # its salt is not the marker's


def test_a_plain_sqlite_file_in_its_place_is_replaced(path: Path, key: DbKey) -> None:
    make_file(path, key)
    path.unlink()
    plain = sqlite3.connect(path)
    plain.execute("CREATE TABLE visitors (name TEXT)")
    plain.commit()
    plain.close()
    assert refused(path, key) == "FILE_REPLACED"


@pytest.mark.parametrize("kind", ["raw", "passphrase"])
def test_wrong_key_and_damaged_first_page_are_told_apart(path: Path, kind: str) -> None:
    key = DbKey.generate() if kind == "raw" else DbKey.from_passphrase("la clave buena")
    wrong = DbKey.generate() if kind == "raw" else DbKey.from_passphrase("la clave mala")
    make_file(path, key)
    before = snapshot(path.parent)
    with pytest.raises(WrongKeyError):
        SqlCipherStore.open(path, wrong)
    assert snapshot(path.parent) == before
    data = bytearray(path.read_bytes())
    data[200] ^= 0x5A  # inside page 1, after SQLCipher's salt
    path.write_bytes(bytes(data))
    assert refused(path, key) == "DAMAGED_FILE"  # the right key: the page is damaged
    with pytest.raises(WrongKeyError):
        SqlCipherStore.open(path, wrong)  # a wrong key stays a wrong key


def test_a_lost_marker_is_refused_until_the_file_is_adopted(path: Path, key: DbKey) -> None:
    file_id = make_file(path, key)
    marker_path(path).unlink()
    assert refused(path, key) == "MARKER_MISSING"
    marker_path(path).write_text("{not json")
    assert refused(path, key) == "MARKER_MISSING"
    with SqlCipherStore.adopt(path, key) as store:  # ``init --adopt``: explicit, audited
        assert store.file_id == file_id  # the id inside is kept
        adopted = [e for e in store.audit_entries() if e.action == "FILE_ADOPTED"]
        assert [e.details["reason"] for e in adopted] == ["init --adopt"]
    with SqlCipherStore.open(path, key, create=False) as store:
        assert store.find_visitor(dni(1)) is not None


def test_a_file_from_before_markers_is_marked_once(path: Path, key: DbKey) -> None:
    make_file(path, key)
    with SqlCipherStore.open(path, key) as store:  # make it look like an older release's
        store.connection.execute("DELETE FROM settings WHERE key = ?", (FILE_ID_SETTING,))
    marker_path(path).unlink()
    with SqlCipherStore.open(path, key, create=False) as store:
        assert store.file_id and store.find_visitor(dni(1)) is not None
        adopted = [e for e in store.audit_entries() if e.action == "FILE_ADOPTED"]
        assert [e.details["reason"] for e in adopted] == ["created before markers"]
    marker = read_marker(path)
    assert marker is not None and marker.file_id == store.file_id


def test_create_never_overwrites(path: Path, key: DbKey) -> None:
    make_file(path, key)
    for step in ("file and marker", "a marker alone"):
        before = snapshot(path.parent)
        with pytest.raises(StoreError) as err:
            SqlCipherStore.create(path, key)
        assert err.value.code == "FILE_EXISTS" and snapshot(path.parent) == before, step
        path.unlink(missing_ok=True)


def test_a_creation_killed_before_its_first_commit_can_be_redone(path: Path, key: DbKey) -> None:
    path.write_bytes(b"")  # created, never written, no marker
    with SqlCipherStore.create(path, key) as store:
        assert store.file_id
    assert read_marker(path) is not None


def test_no_file_and_no_marker_is_no_file(path: Path, key: DbKey) -> None:
    assert refused(path, key, create=False) == "NO_FILE"
    assert list(path.parent.iterdir()) == []


def test_the_marker_is_json_for_a_person_too(path: Path, key: DbKey) -> None:
    make_file(path, key)
    data = json.loads(marker_path(path).read_text("utf-8"))
    assert data["version"] == 1 and "no la borre" in data["note"]
