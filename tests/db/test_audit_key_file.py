"""The audit key file beside the visitor file holds 64 hex characters; whatever else is
found there (raw bytes, text that is not ASCII, a folder, a pipe, a long file) answers
AUDIT_KEY_BAD, never a traceback or a read that does not end."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from admission.errors import StoreError
from db.audit_key import AuditKey, audit_key_from_file, key_file_path, resolve_audit_key


def _raw_bytes(path: Path) -> None:
    path.write_bytes(bytes(range(256))[:32])  # the key itself, not its hex


def _not_ascii(path: Path) -> None:
    path.write_text("é" * 64, "utf-8")


def _folder(path: Path) -> None:
    path.mkdir()


def _pipe(path: Path) -> None:
    os.mkfifo(path)  # nobody writes into it: an open that waited would never return


def _too_long(path: Path) -> None:
    path.write_text("ab" * 100_000, "ascii")


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "gone")


@pytest.mark.parametrize(
    "make", [_raw_bytes, _not_ascii, _folder, _pipe, _too_long, _dangling], ids=lambda f: f.__name__
)
@pytest.mark.parametrize("create", [False, True])
def test_a_key_file_that_holds_no_key_is_a_code(
    tmp_path: Path, make: Callable[[Path], None], create: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADMISSION_AUDIT_KEY", raising=False)
    database = tmp_path / "visitors.db"
    path = key_file_path(database)
    make(path)  # a new key is never made over what is there, even with create
    with pytest.raises(StoreError) as refused:
        resolve_audit_key(database, create=create)
    assert refused.value.code == "AUDIT_KEY_BAD"
    assert path.is_symlink() or path.exists()  # nothing replaced what was found


def test_a_good_key_file_is_read_with_its_white_space(tmp_path: Path) -> None:
    key = AuditKey.generate()
    path = tmp_path / "visitors.db.audit-key"
    path.write_text(f"  {key.hex()}\n", "ascii")
    found = audit_key_from_file(path, create=False)
    assert found is not None and found.key_id == key.key_id and found.source == "file"
