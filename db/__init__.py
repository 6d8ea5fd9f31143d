"""Storage adapters: the SQLCipher visitor file, its keys and migrations, and a fake.

``db`` imports ``admission`` for its records, ports and errors only (STYLE.md rule 3).
Exports are loaded lazily so ``python -m db.migrate`` and ``db.names`` stay light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from db.fake import FakeStore
    from db.keys import DbKey, resolve_key
    from db.store import SqlCipherStore

__all__ = ["DbKey", "FakeStore", "SqlCipherStore", "resolve_key"]

_HOMES = {
    "DbKey": "db.keys",
    "resolve_key": "db.keys",
    "FakeStore": "db.fake",
    "SqlCipherStore": "db.store",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'db' has no attribute {name!r}")
