"""The audit trail is append-only (triggers) and tamper-evident (keyed chain; art. 20.4)."""

from __future__ import annotations

import pytest

from admission.errors import StoreError
from db.audit_chain import GENESIS, digest
from db.fake import FakeStore
from db.store import SqlCipherStore
from tests.db.factories import T0


def fill(store: SqlCipherStore, count: int = 5) -> None:
    for n in range(count):
        store.append("inspector-1", "INSPECTOR_QUERY", f"file:{n}", T0, {"n": str(n)})


def drop_triggers(store: SqlCipherStore) -> None:
    store.connection.execute("DROP TRIGGER audit_no_update")
    store.connection.execute("DROP TRIGGER audit_no_delete")


def test_update_and_delete_are_refused(store: SqlCipherStore) -> None:
    fill(store)
    for sql in (
        "UPDATE audit SET actor = 'x' WHERE seq = 2",
        "UPDATE audit SET digest = 'x' WHERE seq = 2",
        "UPDATE audit SET keyed = 0 WHERE seq = 2",
        "DELETE FROM audit WHERE seq = 5",
    ):
        with pytest.raises(StoreError) as err, store._tx() as conn:
            conn.execute(sql)
        assert "append-only" in str(err.value)
    assert store.verify().ok


def test_edited_row_is_detected(store: SqlCipherStore) -> None:
    fill(store)
    drop_triggers(store)
    store.connection.execute("UPDATE audit SET subject = 'file:99' WHERE seq = 3")
    check = store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 3, "DIGEST_MISMATCH")


def test_a_row_recomputed_without_the_key_is_detected(store: SqlCipherStore) -> None:
    """The unkeyed algorithm of the first releases (SHA-256) no longer makes a valid link."""
    fill(store)
    drop_triggers(store)
    prev = store.connection.execute("SELECT digest FROM audit WHERE seq = 2").fetchone()[0]
    forged = digest(
        prev,
        3,
        "2026-01-10T21:30:00.000000Z",
        "inspector-1",
        "INSPECTOR_QUERY",
        "file:99",
        '{"n":"2"}',
    )
    store.connection.execute(
        "UPDATE audit SET subject = 'file:99', digest = ? WHERE seq = 3", (forged,)
    )
    check = store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 3, "DIGEST_MISMATCH")


def test_a_digest_copied_forward_breaks_the_next_link(store: SqlCipherStore) -> None:
    fill(store)
    drop_triggers(store)
    store.connection.execute("UPDATE audit SET prev_digest = ? WHERE seq = 4", ("ab" * 32,))
    check = store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 4, "CHAIN_BROKEN")


def test_removed_rows_are_detected(store: SqlCipherStore) -> None:
    fill(store)
    drop_triggers(store)
    store.connection.execute("DELETE FROM audit WHERE seq = 2")
    assert store.verify().problem == "SEQUENCE_GAP"


def test_removed_tail_is_detected(store: SqlCipherStore) -> None:
    fill(store)
    drop_triggers(store)
    store.connection.execute("DELETE FROM audit WHERE seq >= 4")
    check = store.verify()
    assert (check.ok, check.entries, check.problem) == (False, 3, "TAIL_MISSING")


def test_an_entry_claiming_the_old_algorithm_is_detected(store: SqlCipherStore) -> None:
    fill(store)
    drop_triggers(store)
    store.connection.execute("UPDATE audit SET keyed = 0 WHERE seq = 2")
    check = store.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 2, "UNKEYED_ENTRY")


def test_fake_uses_the_same_chain() -> None:
    fake = FakeStore()
    fake.append("a", "X", "file:1", T0)
    assert fake.connection.execute("SELECT prev_digest FROM audit").fetchone()[0] == GENESIS
    drop_triggers(fake)
    fake.connection.execute("UPDATE audit SET subject = 'file:2' WHERE seq = 1")
    assert fake.verify().problem == "DIGEST_MISMATCH"
