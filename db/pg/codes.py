"""Why the visitor file on a PostgreSQL server cannot be opened or used. Every refusal at
opening comes before anything is written (Decreto 58/2006, art. 20.4: the file is kept
whole; a desk never starts a second file or changes one it cannot read)."""

from __future__ import annotations

from enum import unique

from admission.codes import Code


@unique
class PgStoreCode(Code):
    """Why the server's visitor file cannot be opened or a call could not complete."""

    SCHEMA_NEWER = "PG_SCHEMA_NEWER"  # written by a newer program: this one must not touch it
    MIGRATION_CHANGED = "PG_MIGRATION_CHANGED"  # an applied migration differs from ours
    MIGRATION_FAILED = "PG_MIGRATION_FAILED"  # rolled back: the schema is as it was
    NO_VISITOR_FILE = "PG_NO_VISITOR_FILE"  # the database holds no visitor file yet
    DATABASE_OTHER = "PG_DATABASE_OTHER"  # not the database this desk is configured for
    BUSY = "PG_BUSY"  # conflicts with other desks persisted through every retry
    QUERY_FAILED = "PG_QUERY_FAILED"  # the server refused a statement (rolled back)


@unique
class PgDeskCode(Code):
    """Why a desk on the server refuses something (the desk's own file, arts. 154-155)."""

    DATABASE_ID_UNREADABLE = "PG_DESK_DATABASE_ID_UNREADABLE"  # postgresql/database-id
    ON_SERVER = "PG_DESK_ON_SERVER"  # backup, restore, copy: commands of the desk's own file
    NO_SERVER = "PG_DESK_NO_SERVER"  # a server command on a desk of its own file
