"""Opening the visitor file: keys from their sources, wrong keys and foreign files leave
the file byte-for-byte untouched, and the key never shows in a repr."""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
from pathlib import Path

import pytest

from admission.errors import ConfigError, StoreError, WrongKeyError
from db.keys import ENV_VAR, KEYRING_SERVICE, DbKey, key_from_env, resolve_key
from db.store import SqlCipherStore
from tests.db.factories import entry
from tests.db.plain_store import open_plain


def snapshot(directory: Path) -> dict[str, str]:
    """Name → SHA-256 of every file in the directory (sidecars included)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def make_file(path: Path, key: DbKey) -> None:
    with SqlCipherStore.open(path, key) as store:
        store.record_admission(entry(1))


def test_reopen_with_the_same_key_raw_or_passphrase(tmp_path: Path) -> None:
    for key in (DbKey.generate(), DbKey.from_passphrase("correct horse ¿battery? 'staple'")):
        path = tmp_path / f"{key.is_raw}.db"
        make_file(path, key)
        with SqlCipherStore.open(path, key, create=False) as store:
            assert store.find_visitor(entry().identity) is not None


@pytest.mark.parametrize("wrong", [DbKey.generate(), DbKey.from_passphrase("wrong")])
def test_wrong_key_is_a_clear_error_and_touches_nothing(tmp_path: Path, wrong: DbKey) -> None:
    path = tmp_path / "visitors.db"
    make_file(path, DbKey.from_passphrase("right"))
    before = snapshot(tmp_path)
    with pytest.raises(WrongKeyError) as err:
        SqlCipherStore.open(path, wrong)
    assert err.value.code == "WRONG_KEY" and "key" in str(err.value)
    assert snapshot(tmp_path) == before  # no byte changed, no -wal/-shm created


@pytest.mark.parametrize(
    "content",
    [
        b"name,dni\nJose,12345678Z\n" * 300,  # a text file
        bytes(8192),  # zeros
        b"\x8f" * 100,  # short garbage
    ],
)
def test_foreign_file_is_corrupt_and_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "visitors.db"
    path.write_bytes(content)
    before = snapshot(tmp_path)
    with pytest.raises(StoreError) as err:
        SqlCipherStore.open(path, DbKey.generate())
    assert err.value.code == "CORRUPT_FILE"
    assert snapshot(tmp_path) == before


def test_unencrypted_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    open_plain(path).close()
    before = snapshot(tmp_path)
    with pytest.raises(StoreError) as err:
        SqlCipherStore.open(path, DbKey.generate())
    assert err.value.code == "CORRUPT_FILE"
    assert snapshot(tmp_path) == before


def test_truncated_encrypted_file_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    key = DbKey.generate()
    make_file(path, key)
    path.write_bytes(path.read_bytes()[:5000])
    with pytest.raises(StoreError) as err:
        SqlCipherStore.open(path, key)
    assert err.value.code == "DAMAGED_FILE"  # the folder's marker says it was a visitor file


def test_no_file_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as err:
        SqlCipherStore.open(tmp_path / "nope.db", DbKey.generate(), create=False)
    assert err.value.code == "NO_FILE"
    assert list(tmp_path.iterdir()) == []  # nothing created


def test_file_is_encrypted_and_pragmas_are_set(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    with SqlCipherStore.open(path, DbKey.generate()) as store:
        conn = store.connection
        assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert not path.read_bytes().startswith(b"SQLite format 3")
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(path).execute("SELECT * FROM sqlite_master").fetchall()


def test_new_file_and_sidecars_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    with SqlCipherStore.open(path, DbKey.generate()) as store:
        store.record_admission(entry(1))
        for file in tmp_path.iterdir():  # the file, -wal and -shm
            assert file.stat().st_mode & 0o077 == 0, file.name


def test_closed_store_refuses_calls(tmp_path: Path) -> None:
    store = SqlCipherStore.open(tmp_path / "v.db", DbKey.generate())
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError) as err:
        store.find_visitor(entry().identity)
    assert err.value.code == "STORE_CLOSED"


def test_key_never_shows() -> None:
    raw = bytes(range(32))
    for key in (DbKey.from_raw(raw), DbKey.from_passphrase("hunter2-secret")):
        for text in (repr(key), str(key), f"{key}", repr([key])):
            assert raw.hex() not in text and "hunter2" not in text
        with pytest.raises(TypeError):
            pickle.dumps(key)


def test_key_forms() -> None:
    raw = DbKey.from_text("AB" * 32)
    assert raw.is_raw and raw.pragma_value() == "\"x'" + "ab" * 32 + "'\""
    phrase = DbKey.from_text("it's a passphrase")
    assert not phrase.is_raw and phrase.pragma_value() == "'it''s a passphrase'"
    with pytest.raises(ValueError):
        DbKey.from_raw(b"short")
    with pytest.raises(ValueError):
        DbKey.from_passphrase("")


class MemoryKeyring:
    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.saved.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.saved[(service, username)] = password


def test_env_key_wins_hex_is_raw_other_is_passphrase() -> None:
    assert key_from_env({}) is None
    assert key_from_env({ENV_VAR: "ab" * 32}).is_raw  # type: ignore[union-attr]
    assert not key_from_env({ENV_VAR: "ab" * 31}).is_raw  # type: ignore[union-attr]
    ring = MemoryKeyring()
    key = resolve_key(database_exists=False, environ={ENV_VAR: "ab" * 32}, keyring_backend=ring)
    assert key.source == "env" and ring.saved == {}


def test_keyring_key_is_generated_on_first_use_only(tmp_path: Path) -> None:
    ring = MemoryKeyring()
    with pytest.raises(ConfigError) as err:  # existing file: never invent a new key
        resolve_key(database_exists=True, environ={}, keyring_backend=ring)
    assert err.value.code == "NO_KEY" and ring.saved == {}
    first = resolve_key(database_exists=False, environ={}, keyring_backend=ring)
    assert first.source == "keyring"
    assert len(ring.saved[(KEYRING_SERVICE, "visitor-file-key")]) == 64
    path = tmp_path / "v.db"
    make_file(path, first)
    again = resolve_key(database_exists=True, environ={}, keyring_backend=ring)
    SqlCipherStore.open(path, again, create=False).close()


def test_operator_passphrase_is_the_last_resort() -> None:
    key = resolve_key(
        database_exists=True,
        environ={},
        use_system_keyring=False,
        ask_passphrase=lambda: "operator phrase",
    )
    assert key.source == "passphrase" and not key.is_raw
    with pytest.raises(ConfigError):
        resolve_key(
            database_exists=True, environ={}, use_system_keyring=False, ask_passphrase=lambda: ""
        )


def test_ping_answers_on_an_open_file_and_fails_on_a_closed_one(tmp_path: Path) -> None:
    store = SqlCipherStore.open(tmp_path / "ping.db", DbKey.generate())
    assert 0 <= store.ping() < 5
    store.close()
    with pytest.raises(StoreError):
        store.ping()
