"""Rewriting the SQLCipher visitor file with its key, without the audit key: each tamper
and the code ``audit verify`` answers (art. 20.4: a legal record; art. 22.1 and 23.4:
correlative numbers; art. 20.2: the register the desk checked against).

The cases are the SQLCipher half of docs/tamper-table.md (tests/tamper_table.py). Each
runs on a desk that has admitted visitors, issued, exchanged and cancelled vouchers,
imported the register and created accounts, with the audit key in the key file beside
the visitor file (the fallback of a desk without keyring); after the tamper the store
is opened again, as the next ``audit verify`` command would, and verified.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.settings import Settings
from admission.settings_record import (
    OUTSIDE_ACTOR,
    record_outside_changes,
    settings_digests,
)
from db.accounts import Argon2Hasher, StoreAccounts
from db.audit_chain import GENESIS, digest
from db.audit_key import ENV_VAR, key_file_path
from db.file_guard import marker_path
from db.keys import DbKey
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook
from tests.db.factories import T0, dni, entry
from tests.tamper_table import (
    Tamper,
    record_accounts_and_settings,
    record_vouchers,
    tamper_voucher,
    verify_answer,
)

CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}  # tests only


@dataclass
class FileDesk:
    path: Path
    key: DbKey
    clock: FixedClock
    store: SqlCipherStore
    settings: Settings  # settings.json as the desk reads it

    def sql(self, *statements: str) -> None:
        """The holder of the file key writes to the file (triggers dropped first)."""
        with self.store.lock:
            conn = self.store.connection
            for trigger in ("audit_no_update", "audit_no_delete", "accounts_no_delete"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            for statement in statements:
                conn.execute(statement)

    def reopen(self) -> SqlCipherStore:
        self.store.close()
        self.store = SqlCipherStore.open(self.path, self.key, create=False, clock=self.clock)
        return self.store


def record_history(desk: FileDesk) -> None:
    """Three admissions (a card voided), three vouchers (exchanged, cancelled, open), the
    register imported, two accounts, the settings saved on the settings screen."""
    store = desk.store
    for n in (1, 2, 3):
        store.record_admission(entry(n))
    store.void_card(2, "wrong type", "director-1", T0)
    record_vouchers(StoreVoucherBook(store))
    replica = ReplicaRegistry(store, desk.clock)
    replica.import_lines([f"{dni(n).number}\n".encode() for n in (7, 8, 9)])
    accounts = StoreAccounts(store, desk.clock, hasher=Argon2Hasher(**CHEAP))
    record_accounts_and_settings(accounts, store, desk.settings)


# -- the laundering of the chain with the file key -----------------------------------------


def _launder(desk: FileDesk, *, key_file_too: bool = False) -> None:
    """Delete visitor 3's visit, its card and every entry about it, renumber, mark the
    entries unkeyed and relink them with the old SHA-256: the chain of a file from before
    the audit key, which the desk used to key again (and bless) at its next open."""
    with desk.store.lock:
        conn = desk.store.connection
        rows = conn.execute(
            "SELECT at, actor, action, subject, details FROM audit ORDER BY seq"
        ).fetchall()
    kept = [r for r in rows if r[3] not in ("file:3", "card:3")]
    statements = [
        "DELETE FROM audit_refs",
        "DELETE FROM audit",
        "DELETE FROM card_events WHERE card_number = 3",
        "DELETE FROM cards WHERE number = 3",
        "DELETE FROM visits WHERE file_number = 3",
        "DELETE FROM visitors WHERE file_number = 3",
        "UPDATE counters SET next = 3 WHERE name = 'card'",
        f"UPDATE counters SET next = {len(kept) + 1} WHERE name = 'audit'",
    ]
    desk.sql(*statements)
    prev = GENESIS
    with desk.store.lock:
        for seq, fields in enumerate(kept, start=1):
            dig = digest(prev, seq, *fields)
            desk.store.connection.execute(
                "INSERT INTO audit (seq, at, actor, action, subject, details, prev_digest, "
                "digest, refs, keyed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}', 0)",
                (seq, *fields, prev, dig),
            )
            prev = dig
    if key_file_too:
        key_file_path(desk.path).unlink()


def _unkeyed_tail(desk: FileDesk) -> None:
    """One entry appended with the old SHA-256 algorithm, flagged unkeyed."""
    with desk.store.lock:
        seq, prev = desk.store.connection.execute(
            "SELECT seq, digest FROM audit ORDER BY seq DESC LIMIT 1"
        ).fetchone()
    fields = (
        "2026-01-10T21:40:00.000000Z",
        "op-7",
        "OBSERVATION",
        "file:1",
        "{}",
    )
    dig = digest(prev, seq + 1, *fields)
    desk.sql(
        "INSERT INTO audit (seq, at, actor, action, subject, details, prev_digest, digest, "
        f"refs, keyed) VALUES ({seq + 1}, '{fields[0]}', 'op-7', 'OBSERVATION', 'file:1', "
        f"'{{}}', '{prev}', '{dig}', '{{}}', 0)",
        f"UPDATE counters SET next = {seq + 2} WHERE name = 'audit'",
    )


def _marker_forgets_the_key(desk: FileDesk) -> None:
    _launder(desk)
    path = marker_path(desk.path)
    data = json.loads(path.read_text("utf-8"))
    data["audit_key_id"] = ""
    path.write_text(json.dumps(data), "utf-8")


def _readopt_coverage(desk: FileDesk) -> None:
    """A voucher slipped in, then the setting that asks the store to adopt the file's
    vouchers (migration 0060) put back: adopted once only, before any voucher entry."""
    desk.sql(
        "INSERT INTO vouchers (number, issued_at, desk_id, operator, holder_name, "
        "document_type, document_number, card_type, price_cents, status, card_number, "
        "closed_at, close_reason) VALUES (4, '2026-01-10T21:45:00.000000Z', 'desk-1', "
        "'op-7', 'Otro', 'DNI', 'X', 'STANDARD', 0, 'OPEN', NULL, NULL, '')",
        "UPDATE counters SET next = 5 WHERE name = 'voucher'",
        "INSERT INTO settings (key, value) VALUES ('audit.coverage_pending', '1')",
    )


_NEW_SNAPSHOT = (
    "INSERT INTO registry_snapshot (snapshot_id, version, scheme, salt, scope, as_of, "
    "imported_at, entry_count, content_sha256, signed, active) VALUES (2, 'other', 'plain', "
    "x'00', 'CASINO', '2026-01-10T00:00:00Z', '2026-01-10T00:00:00Z', 0, '', 0, 1)"
)

CASES: list[Tamper] = [
    Tamper(
        "launder",
        "a visit, its card and their entries deleted, the entries renumbered, marked "
        "unkeyed and relinked with plain SHA-256; the desk opens the file again",
        "UNKEYED_ENTRY",
        _launder,
    ),
    Tamper(
        "launder-no-key",
        "the same, and the audit key file deleted too",
        "UNKEYED_ENTRY",
        lambda d: _launder(d, key_file_too=True),
    ),
    Tamper(
        "launder-marker",
        "the same, and the key id removed from the folder's marker",
        "UNKEYED_ENTRY",
        _marker_forgets_the_key,
    ),
    Tamper(
        "unkeyed-tail",
        "an entry appended with the old unkeyed algorithm",
        "UNKEYED_ENTRY",
        _unkeyed_tail,
    ),
    Tamper(
        "key-deleted",
        "the audit key file of a keyed file deleted",
        "AUDIT_KEY_LOST",
        lambda d: key_file_path(d.path).unlink(),
        error=True,
    ),
    Tamper(
        "entry-edited",
        "an audit entry's actor rewritten",
        "DIGEST_MISMATCH",
        lambda d: d.sql("UPDATE audit SET actor = 'nobody' WHERE seq = 2"),
    ),
    Tamper(
        "visit-edited",
        "an admission rewritten as a refusal",
        "ROW_CHANGED",
        lambda d: d.sql("UPDATE visits SET verdict = 'DENY' WHERE visit_id = 3"),
        "visit:3",
    ),
    Tamper(
        "visit-deleted",
        "a visit and its card deleted",
        "ROWS_MISSING",
        lambda d: d.sql(
            "DELETE FROM card_events WHERE card_number = 3",
            "DELETE FROM cards WHERE number = 3",
            "DELETE FROM visits WHERE visit_id = 3",
        ),
        "visit",
    ),
    Tamper(
        "card-counter-jump",
        "the card counter moved forward (numbers skipped)",
        "CARD_NUMBER_GAP",
        lambda d: d.sql("UPDATE counters SET next = next + 5 WHERE name = 'card'"),
        "card:9",
    ),
    Tamper(
        "card-counter-back",
        "the newest card deleted and the card counter put back (its number given again)",
        "CARD_NUMBER_GAP",
        lambda d: d.sql(
            "DELETE FROM card_events WHERE card_number = 3",
            "DELETE FROM cards WHERE number = 3",
            "UPDATE counters SET next = 3 WHERE name = 'card'",
        ),
        "card:3",
    ),
    Tamper(
        "voucher-counter-jump",
        "the voucher counter moved forward",
        "VOUCHER_NUMBER_GAP",
        lambda d: d.sql("UPDATE counters SET next = 10 WHERE name = 'voucher'"),
        "voucher:10",
    ),
    Tamper(
        "voucher-deleted",
        "a voucher deleted",
        "ROWS_MISSING",
        lambda d: d.sql("DELETE FROM vouchers WHERE number = 2"),
        "voucher",
    ),
    Tamper(
        "voucher-newest-deleted",
        "the newest voucher deleted and the voucher counter put back",
        "VOUCHER_NUMBER_GAP",
        lambda d: d.sql(
            "DELETE FROM vouchers WHERE number = 3",
            "UPDATE counters SET next = 3 WHERE name = 'voucher'",
        ),
        "voucher:3",
    ),
    Tamper(
        "voucher-reopened",
        "a cancelled voucher put back to open",
        "ROW_CHANGED",
        lambda d: d.sql(
            "UPDATE vouchers SET status = 'OPEN', closed_at = NULL, close_reason = '' "
            "WHERE number = 2"
        ),
        "voucher:2",
    ),
    Tamper(
        "voucher-inserted",
        "a voucher inserted",
        "ROW_UNRECORDED",
        lambda d: d.sql(
            "INSERT INTO vouchers (number, issued_at, desk_id, operator, holder_name, "
            "document_type, document_number, card_type, price_cents, status, card_number, "
            "closed_at, close_reason) VALUES (4, '2026-01-10T21:45:00.000000Z', 'desk-1', "
            "'op-7', 'Otro', 'DNI', 'X', 'STANDARD', 0, 'OPEN', NULL, NULL, '')",
        ),
        "voucher:4",
    ),
    Tamper(
        "voucher-adopted-again",
        "a voucher inserted and the one-time adoption of vouchers asked for again",
        "ROW_UNRECORDED",
        _readopt_coverage,
    ),
    Tamper(
        "register-entry-deleted",
        "an identifier removed from the register (RIAJ)",
        "ROW_CHANGED",
        lambda d: d.sql(
            "DELETE FROM registry_entry WHERE digest = (SELECT min(digest) FROM registry_entry)"
        ),
        "registry:1",
    ),
    Tamper(
        "register-entry-added",
        "an identifier added to the register",
        "ROW_CHANGED",
        lambda d: d.sql("INSERT INTO registry_entry (snapshot_id, digest) VALUES (1, x'00')"),
        "registry:1",
    ),
    Tamper(
        "register-swapped",
        "the register replaced by another snapshot",
        "ROW_UNRECORDED",
        lambda d: d.sql(
            "DELETE FROM registry_entry",
            "DELETE FROM registry_snapshot",
            _NEW_SNAPSHOT,
        ),
        "registry:2",
    ),
    Tamper(
        "register-emptied",
        "the register's snapshot and identifiers deleted",
        "ROWS_MISSING",
        lambda d: d.sql("DELETE FROM registry_entry", "DELETE FROM registry_snapshot"),
        "registry",
    ),
    Tamper(
        "settings-edited",
        "settings.json edited outside the settings screen (the casino's name)",
        "SETTINGS_UNRECORDED",
        lambda d: d.settings.set("casino.name", "Otro casino"),
        "setting:casino.name",
    ),
    Tamper(
        "role-changed",
        "a clerk's account given the director's role",
        "ROW_CHANGED",
        lambda d: d.sql("UPDATE accounts SET roles = 'CLERK,DIRECTOR' WHERE username = 'clerk'"),
        "account:2",
    ),
    Tamper(
        "account-deleted",
        "an account deleted",
        "ROWS_MISSING",
        lambda d: d.sql("DELETE FROM accounts WHERE username = 'clerk'"),
        "account",
    ),
]


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)  # the key file beside the visitor file


@pytest.fixture
def desk(tmp_path: Path, key: DbKey, clock: FixedClock) -> Iterator[FileDesk]:
    path = tmp_path / "visitors.db"
    store = SqlCipherStore.create(path, key, clock=clock)
    opened = FileDesk(path, key, clock, store, Settings())
    try:
        record_history(opened)
        yield opened
    finally:
        opened.store.close()


def test_the_history_verifies(desk: FileDesk) -> None:
    check = desk.reopen().verify()
    assert check.ok, check
    kinds = {ref.split(":")[0] for e in desk.store.audit_entries() for ref in e.commits}
    assert {"voucher", "registry", "account", "card", "visit"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_tamper_is_named_by_audit_verify(desk: FileDesk, case: Tamper) -> None:
    case.act(desk)
    code, row, refused = verify_answer(desk.reopen(), desk.settings)
    assert (code, refused) == (case.code, case.error)
    if case.row is not None:
        assert row == case.row


def test_a_laundered_file_is_not_keyed_again(desk: FileDesk) -> None:
    """The desk refuses to 'upgrade' a file its marker knows was keyed: no write, no
    AUDIT_UPGRADE, no new key."""
    _launder(desk, key_file_too=True)
    store = desk.reopen()
    with pytest.raises(StoreError) as err:
        store.record_admission(entry(4))
    assert err.value.code == "UNKEYED_ENTRY"
    assert "backup" in str(err.value)
    assert "AUDIT_UPGRADE" not in [e.action for e in store.audit_entries()]
    assert store.find_visitor(dni(4)) is None
    assert not key_file_path(desk.path).exists()
    assert store.verify().first_bad_seq == 1


def test_adopting_a_laundered_file_does_not_key_it_again(desk: FileDesk) -> None:
    """``init --adopt`` after the marker was deleted: the file's id says it was keyed."""
    _launder(desk)
    desk.store.close()
    marker_path(desk.path).unlink()
    with pytest.raises(StoreError) as err:
        SqlCipherStore.adopt(desk.path, desk.key, clock=desk.clock).close()
    assert err.value.code == "UNKEYED_ENTRY"


def test_the_marker_records_the_key_and_a_new_key_is_never_made(desk: FileDesk) -> None:
    held = key_file_path(desk.path)
    marker = json.loads(marker_path(desk.path).read_text("utf-8"))
    assert marker["audit_key_id"] and len(marker["audit_key_id"]) == 16
    held.unlink()
    store = desk.reopen()
    with pytest.raises(StoreError) as err:
        store.record_admission(entry(4))
    assert err.value.code == "AUDIT_KEY_LOST"
    text = str(err.value)
    assert held.name in text and "backup" in text and "keyring" in text
    assert not held.exists()


def test_settings_changed_outside_the_window_are_recorded_at_the_next_start(
    desk: FileDesk,
) -> None:
    desk.settings.set("casino.name", "Otro casino")
    assert record_outside_changes(desk.store, desk.settings, T0) == ["casino.name"]
    newest = desk.store.audit_entries()[-1]
    assert (newest.actor, newest.action, newest.details["keys"]) == (
        OUTSIDE_ACTOR,
        "SETTINGS_CHANGED",
        "casino.name",
    )
    assert "Otro casino" not in str(newest.details)  # digests, never values
    assert desk.store.verify(settings=settings_digests(desk.settings)).ok
    assert record_outside_changes(desk.store, desk.settings, T0) == []  # once


@pytest.mark.parametrize("name", ["launder", "settings-edited", "voucher-counter-jump"])
def test_the_command_answers_the_code(desk: FileDesk, name: str) -> None:
    """``audit verify`` as the command line runs it (exit 1, the code and its text)."""
    from types import SimpleNamespace

    from ui.cli import audit

    case = next(c for c in CASES if c.name == name)
    case.act(desk)
    parser, common = argparse.ArgumentParser(), argparse.ArgumentParser(add_help=False)
    audit._arguments(parser, common)
    ctx: Any = SimpleNamespace(store=desk.reopen(), settings=desk.settings)
    code, out = audit.run(parser.parse_args(["verify"]), ctx)
    assert code == 1 and isinstance(out, dict)
    assert (out["ok"], out["problem"]) == (False, case.code)
    assert out["message_en"]


def test_a_restore_that_lost_numbers_verifies_and_a_later_jump_does_not(
    tmp_path: Path, key: DbKey, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restore of an older backup resumes the counters past the numbers it lost, and
    its FILE_RESTORED entry says where (``card_resumes_at``): that is no gap; a counter
    moved past it afterwards is."""
    from db.backup import backup
    from db.restore import restore

    monkeypatch.setenv(ENV_VAR, "17" * 32)
    folder, out = tmp_path / "desk", tmp_path / "old.db"
    folder.mkdir()
    with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
        for n in (1, 2):
            store.record_admission(entry(n))
        backup(store, out, now=T0)
        store.record_admission(entry(3))  # card 3: lost with the file
    for name in os.listdir(folder):
        if name.startswith("visitors.db"):
            os.remove(folder / name)
    restore(out, folder, key, accept_loss=lambda loss, copy: "jefa", now=T0 + timedelta(days=1))
    with SqlCipherStore.open(folder / "visitors.db", key, create=False, clock=clock) as store:
        assert store.verify().ok, store.verify()
        with store.lock:
            store.connection.execute("UPDATE counters SET next = next + 1 WHERE name = 'card'")
        assert store.verify().problem == "CARD_NUMBER_GAP"


def test_vouchers_purged_by_retention_are_counted_and_the_file_verifies(desk: FileDesk) -> None:
    """Closed vouchers erased with the visits (R3) are counted by the ERASED entry of
    the purge's transaction: verify passes, the counter keeps their numbers."""
    assert StoreVoucherBook(desk.store).purge_vouchers(T0 + timedelta(days=200)) == 2
    erased = [e for e in desk.store.audit_entries() if e.action == "ERASED"]
    assert erased and erased[-1].details["voucher"] == "2"
    assert desk.store.verify(settings=settings_digests(desk.settings)).ok
    assert StoreVoucherBook(desk.store).issue_voucher(tamper_voucher(9)).number == 4
