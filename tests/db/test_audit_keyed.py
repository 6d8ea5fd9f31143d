"""The keyed audit chain proves the record (art. 20.4: the file is confidential and kept;
art. 14.1.b: the game director answers for it).

Rewriting a visit, a card, a ban, an audit entry, or re-chaining with another key or the
old unkeyed algorithm is detected; rows erased by the six-month purge are accounted
for; a head kept outside the file catches a rewrite made even with the audit key; an
older file is keyed on first use."""

from __future__ import annotations

import argparse
import json
import os
import stat
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.records import AuditAnchor, StaffMember, StaffRole
from db.audit_chain import GENESIS, digest, entry_mac
from db.audit_key import ENV_VAR, AuditKey, key_file_path, resolve_audit_key
from db.connection import connect_encrypted
from db.keys import DbKey
from db.migrate import migrate
from db.store import SqlCipherStore
from tests.db.conftest import Behind
from tests.db.factories import T0, card_for, dni, entry

DAY = timedelta(days=1)
AUDIT_KEY = AuditKey.generate(source="test")


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)


@pytest.fixture
def keyed(tmp_path: Path, key: DbKey, clock: FixedClock) -> Iterator[SqlCipherStore]:
    with SqlCipherStore.open(tmp_path / "visitors.db", key, clock=clock) as store:
        store.use_audit_key(AUDIT_KEY)
        yield store


def history(store: Any) -> dict[str, int]:
    """Three visitors, a refusal, a printed and a voided card, a ban lifted, a staff
    member, an observation."""
    first = store.record_admission(entry(1))
    second = store.record_admission(entry(2, surname="García", given_names="Ana"))
    store.record_admission(entry(3, card=False, verdict="DENY", reasons=("MINOR",)))
    assert first.card_number is not None and second.card_number is not None
    store.mark_printed(first.card_number, T0)
    store.void_card(second.card_number, "wrong type", "sup-1", T0)
    ban = store.add_ban(dni(4), "disturbance", "director-1", T0)
    store.lift_ban(ban.ban_id, "appeal", "director-1", T0 + DAY)
    store.add_staff(StaffMember(dni(5), "Ana Croupier", StaffRole.STAFF), "director-1", T0)
    store.add_observation(first.file_number, "asked for the complaints book", "op-7", T0)
    return {"printed": first.card_number, "voided": second.card_number, "ban": ban.ban_id}


def tamper(store: SqlCipherStore, sql: str, *params: object) -> None:
    """Someone holding the file key, not the audit key, writes to the file."""
    with store.lock:
        store.connection.execute(sql, params)


def last_seq(store: Any, action: str, subject: str) -> int:
    return max(e.seq for e in store.audit_entries() if (e.action, e.subject) == (action, subject))


def test_a_clean_history_verifies_row_by_row(any_store: Any) -> None:
    history(any_store)
    check = any_store.verify()
    assert (check.ok, check.problem, check.first_bad_seq) == (True, "", None)
    # 3 visitors, 3 visits, 2 cards, 1 ban, 1 staff member, 1 observation
    assert check.rows == 11 and check.entries == len(any_store.audit_entries())


def test_rewriting_a_visit_is_detected(any_store: Any, behind: Behind) -> None:
    history(any_store)
    behind("UPDATE visits SET verdict = 'ADMIT', reasons = '[]' WHERE visit_id = 3")
    check = any_store.verify()
    assert (check.ok, check.problem, check.row) == (False, "ROW_CHANGED", "visit:3")
    assert check.first_bad_seq == last_seq(any_store, "VISIT", "file:3")


def test_rewriting_a_ban_is_detected(any_store: Any, behind: Behind) -> None:
    numbers = history(any_store)
    behind("UPDATE bans SET lifted_at = NULL WHERE ban_id = ?", (numbers["ban"],))
    assert (any_store.verify().problem, any_store.verify().row) == ("ROW_CHANGED", "ban:1")


def test_rewriting_a_visitor_is_detected(any_store: Any, behind: Behind) -> None:
    history(any_store)
    behind("UPDATE visitors SET surname = 'Otro' WHERE file_number = 2")
    assert (any_store.verify().problem, any_store.verify().row) == ("ROW_CHANGED", "visitor:2")


def test_rewriting_a_card_or_its_events_is_detected(any_store: Any, behind: Behind) -> None:
    numbers = history(any_store)
    behind("UPDATE cards SET price_cents = 0 WHERE number = ?", (numbers["printed"],))
    check = any_store.verify()
    assert (check.problem, check.row) == ("ROW_CHANGED", f"card:{numbers['printed']}")
    assert check.first_bad_seq == last_seq(any_store, "CARD_PRINTED", f"card:{numbers['printed']}")
    behind("UPDATE cards SET price_cents = 500 WHERE number = ?", (numbers["printed"],))
    assert any_store.verify().ok
    behind("DELETE FROM card_events WHERE card_number = ?", (numbers["printed"],))
    assert any_store.verify().problem == "ROW_CHANGED"


def test_putting_a_card_back_to_an_older_recorded_state_is_detected(
    any_store: Any, behind: Behind
) -> None:
    """Un-voiding a card with its pointer moved to the entry of its issue: every field
    matches what the chain once said, but a later entry said otherwise."""
    numbers = history(any_store)
    voided = numbers["voided"]
    issued_at = last_seq(any_store, "VISIT", "file:2")
    behind("UPDATE cards SET status = 'ISSUED', void_reason = '' WHERE number = ?", (voided,))
    behind("DELETE FROM card_events WHERE card_number = ?", (voided,))
    behind(
        "UPDATE audit_refs SET seq = ? WHERE ref = ?",
        (
            issued_at,
            f"card:{voided}",
        ),
    )
    check = any_store.verify()
    assert (check.ok, check.problem, check.row) == (False, "ROW_ROLLED_BACK", f"card:{voided}")
    assert check.first_bad_seq == last_seq(any_store, "CARD_VOID", f"card:{voided}")


def test_removing_or_adding_a_row_is_detected(any_store: Any, behind: Behind) -> None:
    numbers = history(any_store)
    behind("DELETE FROM bans WHERE ban_id = ?", (numbers["ban"],))
    check = any_store.verify()
    assert (check.ok, check.problem, check.row) == (False, "ROWS_MISSING", "ban")


def test_an_inserted_visit_is_detected(keyed: SqlCipherStore) -> None:
    history(keyed)
    tamper(
        keyed,
        "INSERT INTO visits (file_number, at, desk_id, operator, verdict, reasons, "
        "document_type, document_number, registry_status, registry_source, registry_version) "
        "VALUES (1, '2026-01-09T20:00:00.000000Z', 'desk-1', 'op', 'ADMIT', '[]', 'DNI', 'X', "
        "'NOT_LISTED', 'REPLICA', 'v')",
    )
    check = keyed.verify()
    assert (check.ok, check.problem, check.row, check.first_bad_seq) == (
        False,
        "ROW_UNRECORDED",
        "visit:4",
        None,
    )


def test_a_deletion_outside_the_store_is_not_counted_by_its_next_write(
    any_store: Any, behind: Behind
) -> None:
    """Only erasures made inside the store's own transactions get an ERASED entry."""
    history(any_store)
    behind("DELETE FROM observations")
    any_store.record_admission(entry(9))
    assert "ERASED" not in [e.action for e in any_store.audit_entries()]
    check = any_store.verify()
    assert (check.problem, check.row) == ("ROWS_MISSING", "observation")


def _rechain(store: SqlCipherStore, mac: object) -> None:
    """Rewrite every entry's links with ``mac(prev, row) -> digest``."""
    with store.lock:
        conn = store.connection
        conn.execute("DROP TRIGGER IF EXISTS audit_no_update")
        rows = conn.execute(
            "SELECT seq, at, actor, action, subject, details, refs FROM audit ORDER BY seq"
        ).fetchall()
        prev = GENESIS
        for row in rows:
            new = mac(prev, row)  # type: ignore[operator]
            conn.execute(
                "UPDATE audit SET prev_digest = ?, digest = ? WHERE seq = ?", (prev, new, row[0])
            )
            prev = new


def test_rechaining_with_another_key_or_without_a_key_is_detected(keyed: SqlCipherStore) -> None:
    history(keyed)
    _rechain(keyed, lambda prev, r: entry_mac(AuditKey.generate(), prev, *r))
    check = keyed.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 1, "DIGEST_MISMATCH")
    _rechain(keyed, lambda prev, r: digest(prev, *r[:6]))  # the first releases' SHA-256
    check = keyed.verify()
    assert (check.ok, check.first_bad_seq, check.problem) == (False, 1, "DIGEST_MISMATCH")


def test_a_rewrite_made_with_the_key_is_caught_by_the_printed_head(
    keyed: SqlCipherStore,
) -> None:
    history(keyed)
    head = keyed.head()
    anchor = AuditAnchor(head.seq, head.digest)
    assert keyed.verify([anchor]).ok and keyed.verify([anchor]).anchors == 1
    # The holder of the audit key rewrites entry 2 and re-chains everything after it.
    with keyed.lock:
        keyed.connection.execute("DROP TRIGGER audit_no_update")
        keyed.connection.execute("UPDATE audit SET actor = 'someone-else' WHERE seq = 2")
    _rechain(keyed, lambda prev, r: entry_mac(AUDIT_KEY, prev, *r))
    assert keyed.verify().ok  # the chain alone cannot tell...
    check = keyed.verify([anchor])  # ...the head kept outside the file can
    assert (check.ok, check.first_bad_seq, check.problem) == (False, head.seq, "ANCHOR_MISMATCH")
    beyond = keyed.verify([AuditAnchor(head.seq + 5, head.digest)])
    assert (beyond.problem, beyond.first_bad_seq) == ("ANCHOR_NOT_FOUND", head.seq + 5)


def test_verification_after_the_six_month_purge_passes(any_store: Any) -> None:
    history(any_store)
    any_store.record_admission(entry(6, card=card_for(T0, days=300)))  # outlives its visit
    any_store.record_admission(entry(7, T0 + 200 * DAY))
    report = any_store.purge(T0 + 190 * DAY)
    assert report.visits == 4
    erased = [e for e in any_store.audit_entries() if e.action == "ERASED"]
    assert sum(int(e.details.get("visit", 0)) for e in erased) == 4
    assert any("card:3" in e.commits for e in erased)  # the card that lost its visit
    check = any_store.verify()
    assert check.ok, check
    # visitors 6 and 7, visitor 7's visit and card, visitor 6's card, the staff member
    assert any_store.verify().rows == 6
    any_store.purge(T0 + 400 * DAY)
    assert any_store.verify().ok and any_store.verify().rows == 1


def test_the_key_file_is_made_beside_the_visitor_file_owner_only(
    tmp_path: Path, key: DbKey, clock: FixedClock
) -> None:
    path = tmp_path / "visitors.db"
    with SqlCipherStore.open(path, key, clock=clock) as store:
        store.record_admission(entry(1))
        held = key_file_path(path)
        assert stat.S_IMODE(os.stat(held).st_mode) == 0o600
        secret = held.read_text("ascii")
        values = [
            bytes(v) if isinstance(v, bytes) else str(v).encode()
            for (v,) in (store.connection.execute("SELECT value FROM settings").fetchall())
        ]
        assert all(secret.encode() not in v and bytes.fromhex(secret) not in v for v in values)
    with SqlCipherStore.open(path, key, clock=clock) as again:
        assert again.verify().ok  # the same key, read back


def test_a_keyed_chain_without_its_key_takes_no_audited_write(
    tmp_path: Path, key: DbKey, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "visitors.db"
    with SqlCipherStore.open(path, key, clock=clock) as store:
        store.record_admission(entry(1))
    key_file_path(path).unlink()
    with SqlCipherStore.open(path, key, clock=clock) as store:
        with pytest.raises(StoreError) as err:
            store.record_admission(entry(2))
        assert err.value.code == "AUDIT_KEY_LOST"
        assert "backup" in str(err.value) and "keyring" in str(err.value)
        assert store.find_visitor(dni(2)) is None  # nothing written without its entry
        assert not key_file_path(path).exists()  # the chain is not forked with a new key
    monkeypatch.setenv(ENV_VAR, AuditKey.generate().hex())
    with SqlCipherStore.open(path, key, clock=clock) as store:
        with pytest.raises(StoreError) as err:
            store.append("x", "X", "x", T0)
        assert err.value.code == "AUDIT_KEY_WRONG"


def _legacy_file(path: Path, key: DbKey, *, break_at: int | None = None) -> list[str]:
    """A file as releases before migration 0030 left it: unkeyed SHA-256 chain."""
    conn = connect_encrypted(path, key, create=True)
    migrate(conn, target=29)
    conn.executescript(f"""
        BEGIN;
        INSERT INTO visitors VALUES (1, '{dni(1).text}', 'Muñoz', 'Íñigo', 'MUNOZ INIGO',
            '1970-01-01', 'ESP');
        INSERT INTO visits VALUES (1, 1, '2026-01-01T20:00:00.000000Z', 'desk-1', 'op', 'ADMIT',
            '[]', 'DNI', 'X1', 'NOT_LISTED', 'REPLICA', 'v1', 5, '');
        INSERT INTO cards VALUES (1, 1, 1, 'STANDARD', 500, '2026-01-01T20:00:00.000000Z',
            '2026-01-01', '2026-01-01', 'VOIDED', 0, 0, '', 0, 'lost');
        INSERT INTO card_events VALUES (1, 1, '2026-01-01T20:05:00.000000Z', 'VOIDED', 'lost',
            'sup');
        UPDATE counters SET next = 2 WHERE name = 'card';
        COMMIT;""")
    prev, digests = GENESIS, []
    for seq in (1, 2, 3):
        fields = ("2026-01-01T20:05:00.000000Z", "sup", "CARD_VOID", "card:1", "{}")
        dig = digest(prev, seq, *fields)
        stored = "ff" * 32 if seq == break_at else dig
        conn.execute(
            "INSERT INTO audit (seq, at, actor, action, subject, details, prev_digest, digest) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, *fields, prev, stored),
        )
        digests.append(stored)
        prev = dig
    conn.execute("UPDATE counters SET next = 4 WHERE name = 'audit'")
    conn.close()
    return digests


def test_an_older_file_is_keyed_on_first_use(
    tmp_path: Path, key: DbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v.db"
    legacy = _legacy_file(path, key)
    monkeypatch.setenv(ENV_VAR, AUDIT_KEY.hex())  # known before the store's first write
    with SqlCipherStore.open(path, key) as store:
        check = store.verify()
        assert check.ok, check
        assert check.rows == 3  # the visitor, the visit and the card, committed by baseline
        entries = store.audit_entries()
        assert [e.action for e in entries[:3]] == ["CARD_VOID"] * 3
        assert [e.digest for e in entries[:3]] != legacy  # re-chained with the key
        upgrade = entries[3]
        assert (upgrade.action, upgrade.details["legacy_ok"]) == ("AUDIT_UPGRADE", "1")
        assert upgrade.details["legacy_head"] == legacy[-1]
        assert upgrade.details["key_id"] == AUDIT_KEY.key_id
        baseline = [e for e in entries if e.action == "AUDIT_BASELINE"]
        assert sorted(ref for e in baseline for ref in e.commits) == [
            "card:1",
            "visit:1",
            "visitor:1",
        ]
        # Once keyed, an entry cannot be put back to the old algorithm.
        with pytest.raises(Exception, match="append-only"), store.lock:
            store.connection.execute("UPDATE audit SET keyed = 0 WHERE seq = 1")
        store.record_admission(entry(2, T0))
        assert store.verify().ok


def test_an_older_chain_already_broken_is_not_laundered(
    tmp_path: Path, key: DbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v.db"
    _legacy_file(path, key, break_at=2)
    monkeypatch.setenv(ENV_VAR, AUDIT_KEY.hex())
    with SqlCipherStore.open(path, key) as store:
        check = store.verify()
        assert (check.ok, check.problem, check.first_bad_seq) == (False, "LEGACY_CHAIN_BROKEN", 2)
        upgrade = next(e for e in store.audit_entries() if e.action == "AUDIT_UPGRADE")
        assert json.dumps(upgrade.details, sort_keys=True).count("DIGEST_MISMATCH") == 1
        store.record_admission(entry(2, T0))  # the desk goes on; the record says the rest


def test_the_command_line_prints_the_head_and_checks_anchors(keyed: SqlCipherStore) -> None:
    from types import SimpleNamespace

    from ui.cli import audit

    history(keyed)
    parser, common = argparse.ArgumentParser(), argparse.ArgumentParser(add_help=False)
    audit._arguments(parser, common)
    ctx: Any = SimpleNamespace(store=keyed)
    code, head = audit.run(parser.parse_args(["head"]), ctx)
    assert code == 0 and isinstance(head, dict) and set(head) == {"seq", "digest", "at"}
    assert head["seq"] == keyed.head().seq and head["at"] == keyed.head().at.isoformat()  # type: ignore[union-attr]
    anchor = f"{head['seq']}:{head['digest']}"
    code, out = audit.run(parser.parse_args(["verify", "--anchor", anchor]), ctx)
    assert code == 0 and isinstance(out, dict)
    assert (out["ok"], out["first_bad_seq"], out["problem"], out["anchors"]) == (True, None, "", 1)
    assert out["rows"] == 11 and out["key_source"] == "test"
    code, out = audit.run(
        parser.parse_args(["verify", "--anchor", f"{head['seq']}:{'0' * 64}"]), ctx
    )
    assert code == 1 and isinstance(out, dict)
    assert (out["ok"], out["first_bad_seq"], out["problem"]) == (
        False,
        head["seq"],
        "ANCHOR_MISMATCH",
    )
    code, out = audit.run(parser.parse_args(["verify", "--anchor", "seven:abc"]), ctx)
    assert code == 2 and isinstance(out, dict) and out["error"] == "BAD_ANCHOR"


class MemoryKeyring:
    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.saved.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.saved[(service, username)] = password


def test_the_key_comes_from_the_environment_the_keyring_or_the_key_file(tmp_path: Path) -> None:
    database = tmp_path / "visitors.db"
    keyring = MemoryKeyring()
    assert resolve_audit_key(database, create=False, environ={}, keyring_backend=keyring) is None
    made = resolve_audit_key(database, create=True, environ={}, keyring_backend=keyring)
    assert made is not None and made.source == "keyring" and not key_file_path(database).exists()
    again = resolve_audit_key(database, create=False, environ={}, keyring_backend=keyring)
    assert again is not None and again.key_id == made.key_id
    env = {ENV_VAR: AUDIT_KEY.hex()}
    first = resolve_audit_key(database, create=True, environ=env, keyring_backend=keyring)
    assert first is not None and (first.source, first.key_id) == ("env", AUDIT_KEY.key_id)
    filed = resolve_audit_key(database, create=True, environ={})
    assert filed is not None and filed.source == "file" and key_file_path(database).exists()
    assert "hidden" in repr(filed) and filed.hex() not in repr(filed)
    with pytest.raises(StoreError) as err:
        resolve_audit_key(database, create=False, environ={ENV_VAR: "not hex"})
    assert err.value.code == "AUDIT_KEY_BAD"
