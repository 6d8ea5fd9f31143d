"""Storage adapters: the visitor file (SQLCipher or PostgreSQL), its keys and migrations,
and a fake. Nothing is imported here, so ``python -m db.migrate`` and ``db.names`` stay light."""
