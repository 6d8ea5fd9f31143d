"""Storage adapters: the visitor file (SQLCipher or PostgreSQL), its keys and migrations,
and a fake. Exports load lazily so ``python -m db.migrate`` and ``db.names`` stay light."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from db.fake import FakeStore
    from db.keys import DbKey, resolve_key
    from db.store import SqlCipherStore

__all__ = ["DbKey", "FakeStore", "SqlCipherStore", "resolve_key"]
_HOMES = {"DbKey": "keys", "resolve_key": "keys", "FakeStore": "fake", "SqlCipherStore": "store"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'db' has no attribute {name!r}")
    return getattr(importlib.import_module(f"db.{_HOMES[name]}"), name)
