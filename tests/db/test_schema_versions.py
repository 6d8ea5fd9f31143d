"""An installed upgrade migrates the visitor file on its first start, with an audit
entry; a downgraded desk refuses a file a newer desk migrated, before writing anything
(SCHEMA_NEWER). The visitor file is the casino's record (art. 20.3-4): an older program
must never write into a structure it does not know."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

import db.connection
from db.keys import DbKey
from db.migrate import MIGRATIONS_DIR, available, migrate
from db.store import SqlCipherStore
from tests.db.factories import dni
from tests.db.test_file_guard import make_file, refused


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "visitors.db"


def test_a_file_a_newer_desk_migrated_is_refused_untouched(path: Path, key: DbKey) -> None:
    make_file(path, key)
    with SqlCipherStore.open(path, key, create=False) as store:  # what a newer desk leaves
        store.connection.execute(
            "INSERT INTO schema_migrations (version, name, sha256, applied_at) "
            "VALUES (9999, 'from_a_newer_desk', '', '2027-01-01T00:00:00Z')"
        )
    assert refused(path, key, create=False) == "SCHEMA_NEWER"


def test_the_first_start_of_an_upgrade_migrates_and_audits_it_once(
    path: Path, key: DbKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    newest = available()[-1]
    older = tmp_path / "older-migrations"  # the schema of the version before
    older.mkdir()
    for item in MIGRATIONS_DIR.iterdir():
        if item.name.endswith(".sql") and not item.name.startswith(f"{newest.version:04d}_"):
            shutil.copy2(item, older / item.name)
    with monkeypatch.context() as patch:
        patch.setattr(db.connection, "migrate", functools.partial(migrate, directory=older))
        make_file(path, key)
    with SqlCipherStore.open(path, key, create=False) as store:  # the upgraded desk
        versions = {
            row[0] for row in store.connection.execute("SELECT version FROM schema_migrations")
        }
        assert newest.version in versions
        migrated = [e for e in store.audit_entries() if e.action == "SCHEMA_MIGRATED"]
        assert [e.details["migrations"] for e in migrated] == [f"{newest.version:04d}"]
        assert store.find_visitor(dni(1)) is not None  # the visitors are all still there
    with SqlCipherStore.open(path, key, create=False) as store:  # the next start: nothing
        migrated = [e for e in store.audit_entries() if e.action == "SCHEMA_MIGRATED"]
        assert len(migrated) == 1
        assert store.verify().ok  # the entry is chained like every other
