"""Moving a desk's SQLCipher visitor file onto the shared PostgreSQL server, verified and
restartable (Decreto 58/2006: art. 20.4, the file is kept whole for six months; art.
22, card numbers correlative and never reused; arts. 154-155, one file for the unit).

    report = copy_to_server(source, target)   # SqlCipherStore -> a fresh PgStore
    if not report.ok: ...                     # report.code, report.differences

What is carried, with its own numbers: visitors (file numbers), their visits, the
observations, the cards with their prints, reprints and voids (card numbers; the card
counter continues after the source's last number, erased numbers included), the bans,
the staff, the desk accounts, the provisional vouchers (the voucher counter continues
after the last), the generated secrets (the card-code key: printed cards still verify;
the audit-subject key: the chain's staff references still match) and the other settings
but the file's own id. Not carried: the RIAJ replica (the server keeps its own), the
SQLCipher file's id (the server has its database id).

The audit trail is carried ENTRY BY ENTRY, verbatim (seq, time, actor, action, subject,
details, refs, previous digest, digest): the chain's digests are HMACs under the audit
key over values, never over how a store keeps them (db/audit_chain.py), and each row's
digest is over its opened content, which both stores give alike. So with the same audit
key the chain verifies on the server, and the heads printed outside the file before the
move (``audit head``) still anchor it. The move itself is then audited on the server by
one ``FILE_MIGRATED`` entry, chained after the source's head, naming the source file's id,
its head (seq and digest) and the count of each table. A target opened with another
audit key is refused (``PG_COPY_AUDIT_KEY_DIFFERS``): a fresh chain under a new key
would cut the record the inspectors check against the printed heads.

Sealing: every value is sealed by the server's transaction as the rules seal it (same
table, column and row binding; db/pg/copy_rows.py); the proof is the verification at
the end (db/pg/copy_verify.py), which reads the copied rows back through the store's
opening code and the chain's row digests.

Restartable: each batch is one transaction of the server (after the chain's head lock);
the first one also writes the ``copy.source`` setting naming the source (its id and
head). A second run on a target holding that setting for the same source and head
continues where the first stopped (each table from its highest key copied); for another
source, or a target holding anything without that setting, it is refused
(``PG_COPY_TARGET_NOT_EMPTY``). When the source's chain grew since the copy began, the
copy goes on only if the new entries record no row and erase none (a sign-in, such as
the command line's own, is carried up to the new head); otherwise the desk kept working
and ``PG_COPY_SOURCE_CHANGED`` says the copy must be made again into a fresh database
(the server's audit trail cannot be rolled back, by design). A finished copy run again
is only verified again. One copy at a time
per database (a session advisory lock, ``PG_COPY_RUNNING``). No desk may use the target
before the copy has verified: the copy writes with the source's numbers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from admission.errors import StoreError
from db.chain import CHAIN_COLUMNS
from db.pg.copy_report import (
    COPY_ACTION,
    COPY_ACTOR,
    COPY_MARKER,
    DEFAULT_BATCH,
    TABLES,
    CopyCode,
    CopyProgress,
    CopyReport,
)
from db.pg.copy_rows import Copier
from db.pg.copy_source import entries_after, file_identity, select, source_audit_key
from db.pg.copy_verify import verify_copy
from db.pg.store import PgStore
from db.store import SqlCipherStore

__all__ = [
    "COPY_ACTION",
    "COPY_MARKER",
    "DEFAULT_BATCH",
    "TABLES",
    "CopyCode",
    "CopyProgress",
    "CopyReport",
    "copy_lock",
    "copy_to_server",
    "source_audit_key",
    "verify_copy",
]

_LOCK_LABEL = b"admission-desk/pg/copy-lock/v1"


def copy_to_server(
    source: SqlCipherStore,
    target: PgStore,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[CopyProgress], None] | None = None,
    actor: str = COPY_ACTOR,
) -> CopyReport:
    """Copy ``source`` into ``target`` (a PgStore opened with ``create=True`` on an
    empty database, with the source's audit key: :func:`source_audit_key`), then verify.

    Raises StoreError before writing anything: ``PG_COPY_SOURCE_UNVERIFIED`` (the
    source's chain or rows do not verify: fix the source first), ``PG_COPY_AUDIT_KEY_DIFFERS``,
    ``PG_COPY_TARGET_NOT_EMPTY``, ``PG_COPY_SOURCE_CHANGED``, ``PG_COPY_RUNNING``; the
    stores' own codes (a lost connection, a damaged source...). An interruption (an
    exception from ``progress``, a killed process, a cut network) leaves whole batches;
    the next call continues. Returns the report of the verification.
    """
    if batch < 1:
        raise ValueError("batch must be at least 1")
    check = source.verify()  # (keys a chain older than the keyed one first, once)
    if not check.ok:
        raise StoreError(
            f"the source's audit trail does not verify ({check.problem} at {check.first_bad_seq})",
            code=CopyCode.SOURCE_UNVERIFIED,
        )
    head = source.head()
    _check_same_audit_key(source, target)
    copier = Copier(source, target, batch, progress, head, file_identity(source, head))
    with copy_lock(target):
        copier.begin()
        if not copier.report.already_copied:
            copier.copy_rows()
            entries_after(source, copier.head)  # written during the copy: refused
            copier.finish(actor)
    return verify_copy(source, target, copier.report)


def _check_same_audit_key(source: SqlCipherStore, target: PgStore) -> None:
    newest = select(source, f"SELECT {CHAIN_COLUMNS} FROM audit ORDER BY seq DESC LIMIT 1")
    if newest and not target.chained_under_key(newest[0]):
        raise StoreError(
            "the server store was opened with another audit key than the source's",
            code=CopyCode.AUDIT_KEY_DIFFERS,
        )


def copy_lock(target: PgStore) -> contextlib.AbstractContextManager[None]:
    """The target database's session advisory lock for the copy's length: one copy at a
    time (``PG_COPY_RUNNING``); a killed process's session ends and frees it."""
    busy = StoreError("another copy into this database is running", code=CopyCode.RUNNING)
    return target.session_lock(_LOCK_LABEL, busy)
