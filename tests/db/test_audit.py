"""The audit trail is append-only (triggers) and tamper-evident (keyed chain; art. 20.4),
on every dialect: the SQLCipher file, the in-memory SQLite dialect and the server (its
entries rewritten there by the superuser, who holds no audit key)."""

from __future__ import annotations

from typing import Any

import pytest

from admission.errors import StoreError
from db.audit_chain import GENESIS, AuditChainCode, digest
from db.store import SqlCipherStore
from tests.db.conftest import Behind
from tests.db.factories import T0, entry


def fill(store: Any, count: int = 5) -> int:
    """``count`` entries; the seq before the first of them (a store may open with its own)."""
    base = store.head().seq
    for n in range(count):
        store.append("inspector-1", "INSPECTOR_QUERY", f"file:{n}", T0, {"n": str(n)})
    return base


def test_update_and_delete_are_refused(any_store: Any) -> None:
    base = fill(any_store)
    for sql in (
        f"UPDATE audit SET actor = 'x' WHERE seq = {base + 2}",
        f"UPDATE audit SET digest = 'x' WHERE seq = {base + 2}",
        f"DELETE FROM audit WHERE seq = {base + 5}",
    ):
        with pytest.raises(StoreError) as err:
            any_store.write(lambda tx, sql=sql: tx.execute(sql))
        assert "append-only" in str(err.value)
    assert any_store.verify().ok


def test_the_file_s_keyed_flag_is_append_only_too(store: SqlCipherStore) -> None:
    fill(store)
    with pytest.raises(StoreError) as err:
        store.write(lambda tx: tx.execute("UPDATE audit SET keyed = 0 WHERE seq = 2"))
    assert "append-only" in str(err.value)


def test_the_first_entry_follows_genesis(any_store: Any) -> None:
    fill(any_store)
    first = any_store.read(lambda tx: tx.one("SELECT prev_digest FROM audit WHERE seq = 1"))
    assert first == (GENESIS,)


def test_edited_row_is_detected(any_store: Any, behind: Behind) -> None:
    base = fill(any_store)
    behind(f"UPDATE audit SET subject = 'file:99' WHERE seq = {base + 3}")
    check = any_store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, base + 3, "DIGEST_MISMATCH")


def test_a_row_recomputed_without_the_key_is_detected(any_store: Any, behind: Behind) -> None:
    """The unkeyed algorithm of the first releases (SHA-256) no longer makes a valid link."""
    base = fill(any_store)
    seq = base + 3
    prev = any_store.read(lambda tx: tx.one("SELECT digest FROM audit WHERE seq = ?", (seq - 1,)))
    forged = digest(
        prev[0],
        seq,
        "2026-01-10T21:30:00.000000Z",
        "inspector-1",
        "INSPECTOR_QUERY",
        "file:99",
        '{"n":"2"}',
    )
    behind("UPDATE audit SET subject = 'file:99', digest = ? WHERE seq = ?", (forged, seq))
    check = any_store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, seq, "DIGEST_MISMATCH")


def test_a_digest_copied_forward_breaks_the_next_link(any_store: Any, behind: Behind) -> None:
    base = fill(any_store)
    behind("UPDATE audit SET prev_digest = ? WHERE seq = ?", ("ab" * 32, base + 4))
    check = any_store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, base + 4, "CHAIN_BROKEN")


def test_removed_rows_are_detected(any_store: Any, behind: Behind) -> None:
    base = fill(any_store)
    behind("DELETE FROM audit WHERE seq = ?", (base + 2,))
    assert any_store.verify().problem == "SEQUENCE_GAP"


def test_removed_tail_is_detected(any_store: Any, behind: Behind) -> None:
    base = fill(any_store)
    behind("DELETE FROM audit WHERE seq >= ?", (base + 4,))
    check = any_store.verify()
    assert (check.ok, check.entries, check.problem) == (False, base + 3, "TAIL_MISSING")


def test_the_chain_catches_a_row_changed_or_erased_behind_its_back(
    any_store: Any, behind: Behind
) -> None:
    for n in (1, 2, 3):
        any_store.record_admission(entry(n))
    any_store.add_observation(1, "Pidió hoja de reclamaciones", "op-7", T0)
    assert any_store.verify().ok
    behind("UPDATE visits SET desk_id = 'desk-9' WHERE visit_id = 2")
    check = any_store.verify()
    assert (check.ok, check.problem, check.row) == (False, AuditChainCode.ROW_CHANGED, "visit:2")
    behind("UPDATE visits SET desk_id = 'desk-1' WHERE visit_id = 2")
    assert any_store.verify().ok
    behind("DELETE FROM observations")
    check = any_store.verify()
    assert (check.ok, check.problem) == (False, AuditChainCode.ROWS_MISSING)


def test_an_entry_claiming_the_old_algorithm_is_detected(store: SqlCipherStore) -> None:
    """The file's own: only a file written by the first releases holds unkeyed entries."""
    fill(store)
    store.connection.execute("DROP TRIGGER audit_no_update")
    store.connection.execute("UPDATE audit SET keyed = 0 WHERE seq = 2")
    check = store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 2, "UNKEYED_ENTRY")
