"""Storage adapters: the SQLCipher visitor file, its keys and migrations, and a fake.

``db`` imports ``admission`` for its records, ports and errors only (STYLE.md rule 3).
"""

from db.fake import FakeStore
from db.keys import DbKey, resolve_key
from db.store import SqlCipherStore

__all__ = ["DbKey", "FakeStore", "SqlCipherStore", "resolve_key"]
