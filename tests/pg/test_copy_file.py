"""Moving a desk's SQLCipher visitor file onto the server (Decreto 58/2006, art. 20.4: the
file is kept whole; art. 22: card numbers correlative, never reused): a real file built
through the SQLCipher store (admissions, refusals, officials, an exceptional card,
prints, voids, reprints, observations, bans, staff, accounts, vouchers, a purge that
leaves gaps) is copied into a fresh server database, read back through PgStore's own
methods, and verified; an interrupted copy continues without a duplicate; a server
holding another file, a source written since, another audit key and a wrong file key
are refused."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.accounts import AccountError, Role
from admission.clock import FixedClock
from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.records import AuditAnchor, StaffMember, StaffRole
from admission.vouchers.model import NewVoucher
from db.accounts import Argon2Hasher, StoreAccountBook, StoreAccounts
from db.audit_chain import AuditChainCode
from db.audit_key import AuditKey
from db.keys import DbKey
from db.pg.copy_file import (
    COPY_ACTION,
    COPY_MARKER,
    CopyCode,
    CopyProgress,
    copy_lock,
    copy_to_server,
    source_audit_key,
)
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook
from tests.db.factories import T0, card_for, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

DAY = timedelta(days=1)
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
NOW = T0 + 40 * DAY
SURNAMES = ["Peña Núñez", "García", "O'Brien", "Zubizarreta", "Garcés", "López de Haro"]
GIVEN = ["José María", "María José", "Seán", "Ainhoa", "Jon", "Íñigo"]


class Interrupted(Exception):
    """Stands for the process stopped between two batches."""


@dataclass
class Source:
    folder: Path
    key: DbKey
    audit: AuditKey
    key_text: str = ""

    def open(self) -> SqlCipherStore:
        return SqlCipherStore.open(
            self.folder / "visitors.db", self.key, create=False, clock=FixedClock(NOW)
        )


def _build(
    folder: Path, *, admissions: int = 360, base: datetime = T0, key_text: str = ""
) -> Source:
    """A few hundred admissions over three weeks, then a purge of the first week."""
    folder.mkdir(parents=True, exist_ok=True)
    key = DbKey.from_text(key_text) if key_text else DbKey.generate(source="test")
    clock = FixedClock(base)
    store = SqlCipherStore.open(folder / "visitors.db", key, clock=clock)
    try:
        for i in range(admissions):
            n = i % 170 + 1
            at = base + (i // 120) * 7 * DAY + timedelta(minutes=i)
            changes: dict[str, Any] = {
                "surname": SURNAMES[n % 6],
                "given_names": GIVEN[(n // 6) % 6],
            }
            if i % 11 == 0:  # refused at the door: no card (art. 21)
                changes |= {"verdict": "DENY", "reasons": ("RIAJ_LISTED",), "card": False}
            elif i % 29 == 0:  # an official on duty (art. 24): no card
                changes |= {"official_capacity": "INSPECTOR", "card": False}
            elif i % 37 == 0:  # the director's exceptional card (art. 23.5)
                changes["card"] = card_for(at, exceptional=True, authorised_by="director-1")
            elif i % 13 == 0:  # a three-day card
                changes["card"] = card_for(at, days=3)
            recorded = store.record_admission(entry(n, at, **changes))
            if recorded.card_number is not None and i % 3 == 0:
                store.mark_printed(recorded.card_number, at + timedelta(seconds=30))
                if i % 9 == 0:
                    store.record_reprint(recorded.card_number, "atasco", "op-7", at + DAY / 24)
                    store.mark_printed(recorded.card_number, at + DAY / 12)
            if recorded.card_number is not None and i % 47 == 0:
                store.void_card(recorded.card_number, "datos erróneos", "director-1", at)
            if i % 17 == 0:
                store.add_observation(recorded.file_number, f"Nota {i}: pidió hoja", "op-7", at)
        for b in range(12):
            ban = store.add_ban(
                dni(500 + b if b % 2 else b + 1),
                f"Altercado {b}",
                "director-1",
                base + b * DAY,
                expires_at=base + (60 + b) * DAY if b % 3 == 0 else None,
            )
            if b % 4 == 1:
                store.lift_ban(ban.ban_id, "Recurso estimado", "director-1", base + (b + 2) * DAY)
        for s in range(6):
            role = StaffRole.DIRECTOR if s == 0 else StaffRole.STAFF
            store.add_staff(StaffMember(dni(900 + s), f"Empleado {s}", role), "director-1", base)
        store.add_staff(
            StaffMember(dni(903), "Empleado 3", StaffRole.STAFF, False), "director-1", base + DAY
        )
        accounts = StoreAccounts(store, clock, hasher=Argon2Hasher(**CHEAP))
        accounts.create_account("admin", "Ana Admin", "admin-secret-1", [Role.ADMIN], actor=None)
        admin = accounts.sign_in("admin", "admin-secret-1")
        accounts.create_account("clerk", "Carla", "clerk-secret-1", [Role.CLERK], actor=admin)
        accounts.create_account(
            "director", "Dora", "director-secret-1", [Role.DIRECTOR], actor=admin
        )
        with pytest.raises(AccountError):  # a counted failure, audited
            accounts.sign_in("clerk", "wrong-password")
        director = accounts.sign_in("director", "director-secret-1")
        accounts.set_pin(director, "director-secret-1", "97531")  # the quick unlock's
        book = StoreVoucherBook(store)
        for v in range(16):
            voucher = book.issue_voucher(
                NewVoucher(
                    base + v * DAY,
                    "desk-1",
                    "op-7",
                    f"Titular {v}",
                    "DNI",
                    f"V{v:06d}",
                    "STANDARD",
                    500,
                )
            )
            if v % 4 == 1:
                book.exchange_voucher(voucher.number, v + 1, base + v * DAY + DAY / 24)
            elif v % 4 == 2:
                book.cancel_voucher(voucher.number, "sin tarjeta", base + v * DAY + DAY / 24)
        # the desk's RIAJ snapshot, in its chain (art. 20.2); the server keeps its own
        replica = ReplicaRegistry(store, clock)
        replica.import_lines([f"{dni(n).number}\n".encode() for n in (700, 701)])
        store.secret("card_code")
        store.set_setting("retention.last_purge", (base + 20 * DAY).isoformat())
        clock.set(base + 20 * DAY)
        store.purge(base + 5 * DAY)  # the first week goes: gaps in cards and file numbers
        assert store.verify().ok
        audit = source_audit_key(store)
    finally:
        store.close()
    return Source(folder, key, audit, key_text)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return _build(tmp_path_factory.mktemp("source"), key_text=secrets.token_hex(32))


@pytest.fixture
def source_copy(built: Source, tmp_path: Path) -> Source:
    """The built file in a folder of this test's own (tests may write to it)."""
    folder = tmp_path / "desk"
    shutil.copytree(built.folder, folder)
    return Source(folder, built.key, built.audit, built.key_text)


@pytest.fixture
def source(source_copy: Source) -> Iterator[SqlCipherStore]:
    with source_copy.open() as store:
        store.use_audit_key(source_copy.audit)
        yield store


@pytest.fixture
def server(pg_cluster: Any, source_copy: Source) -> Iterator[Any]:
    """Opens fresh server stores (the source's audit key unless told) on one schema."""
    schema = fresh_schema(pg_cluster)
    installation = InstallationKey.generate("test")
    opened: list[PgStore] = []

    def open_store(audit: AuditKey | None = None) -> PgStore:
        store = PgStore.open(
            schema_conninfo(pg_cluster, schema),
            installation,
            audit_key=audit or source_copy.audit,
            create=True,
            clock=FixedClock(NOW),
        )
        opened.append(store)
        return store

    open_store.schema = schema  # type: ignore[attr-defined]
    yield open_store
    for store in opened:
        store.close()


def _superuser(cluster: Any, schema: str, statement: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(schema)))
        cur = conn.execute(statement.encode())
        return cur.fetchall() if cur.description else []


def _stop_after(batches: int) -> Any:
    def progress(step: CopyProgress) -> None:
        if step.batches >= batches:
            raise Interrupted(step.step)

    return progress


def _stop_in(step: str, rows: int) -> Any:
    def progress(done: CopyProgress) -> None:
        if done.step == step and done.rows >= rows:
            raise Interrupted(step)

    return progress


def _table_counts(cluster: Any, schema: str) -> dict[str, int]:
    tables = ("visitors", "visits", "cards", "card_events", "audit", "audit_refs", "vouchers")
    return {t: _superuser(cluster, schema, f"SELECT count(*) FROM {t}")[0][0] for t in tables}


# -- the copy, read back ------------------------------------------------------------------


def test_the_copy_reads_back_as_the_source_and_verifies(
    source: SqlCipherStore, server: Any
) -> None:
    target = server()
    report = copy_to_server(source, target, batch=64)
    assert report.ok, report.differences
    assert report.code == "" and not report.resumed and not report.already_copied
    assert report.source_counts["visits"] > 200 and report.source_counts["vouchers"] == 16
    for table, count in report.source_counts.items():
        extra = 1 if table == "audit" else 0  # the FILE_MIGRATED entry
        assert report.target_counts[table] == count + extra, table
    assert report.card_gaps > 0  # the purge erased the first week's cards
    assert report.audit is not None and report.audit.ok and report.audit.anchors == 1

    # every visitor, visit, observation, card, event, ban and staff member through PgStore
    with source.reading() as conn:
        files = [r[0] for r in conn.execute("SELECT file_number FROM visitors ORDER BY 1")]
        numbers = [r[0] for r in conn.execute("SELECT number FROM cards ORDER BY 1")]
        banned = {r[0] for r in conn.execute("SELECT identity FROM bans")}
    for fn in files:
        mine = source.visitor(fn)
        assert mine is not None and target.visitor(fn) == mine
        assert target.visits(fn) == source.visits(fn)
        assert target.observations(fn) == source.observations(fn)
        assert target.find_visitor(mine.identity) == mine
    for number in numbers:
        assert target.card(number) == source.card(number)
        assert target.card_events(number) == source.card_events(number)
    from admission.identity import IdentityKey

    for text in banned:
        identity = IdentityKey.parse(text)
        assert target.bans(identity) == source.bans(identity)
        assert target.active_bans(identity, NOW) == source.active_bans(identity, NOW)
    assert target.staff_members() == source.staff_members()
    for query in ("garc", "peña nú", "o'brien", "lopez de", "zubi ainhoa"):
        assert target.search_visitors(query, 500) == source.search_visitors(query, 500)
    assert StoreAccountBook(target).all_accounts() == StoreAccountBook(source).all_accounts()
    for name in ("admin", "clerk", "director"):
        assert StoreAccountBook(target).find(name) == StoreAccountBook(source).find(name)
    pin = StoreAccountBook(target).find("director")
    assert pin is not None and pin.pin_hash is not None  # the PIN's hash came along
    for n in range(1, 17):
        assert StoreVoucherBook(target).voucher(n) == StoreVoucherBook(source).voucher(n)
    assert target.secret("card_code") == source.secret("card_code")  # printed cards verify
    assert target.keyed_hash("x") == source.keyed_hash("x")
    assert target.get_setting("retention.last_purge") == source.get_setting("retention.last_purge")

    # the chain: the source's printed head anchors it, then the audited move
    head = source.head()
    server_check = target.verify([AuditAnchor(head.seq, head.digest)])  # as a desk will
    assert server_check.ok  # account rows included
    last = target.audit_entries(head.seq, 5)
    assert [e.action for e in last] == [COPY_ACTION]
    assert last[0].details["source_head_digest"] == head.digest
    assert last[0].details["source_file"] == source.file_id
    assert last[0].details["rows_cards"] == str(len(numbers))

    # the sequences continue: the next card after the last ever issued, a new file number
    # after the highest ever given (erased ones included)
    last_card = source.last_card_number()
    assert report.last_card_number == target.last_card_number() == last_card
    with source.reading() as conn:
        high = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'visitors'").fetchone()[0]
    recorded = target.record_admission(entry(4321, NOW, surname="Nueva", given_names="Persona"))
    assert recorded.card_number == last_card + 1
    assert recorded.file_number == high + 1 and recorded.new_visitor
    again = target.record_admission(entry(171, NOW + DAY))
    assert again.card_number == last_card + 2
    voucher = StoreVoucherBook(target).issue_voucher(
        NewVoucher(NOW, "desk-2", "op-1", "Otro", "DNI", "X1", "STANDARD", 500)
    )
    assert voucher.number == 17


def test_an_interrupted_copy_continues_without_a_duplicate(
    pg_cluster: Any, source: SqlCipherStore, server: Any
) -> None:
    target = server()
    with pytest.raises(Interrupted):
        copy_to_server(source, target, batch=23, progress=_stop_after(4))
    part = _table_counts(pg_cluster, server.schema)
    assert part["visitors"] > 0 and part["cards"] == 0 and part["audit"] == 0
    assert target.get_setting(COPY_MARKER) is not None
    with pytest.raises(Interrupted):  # stopped again, later: inside the audit trail
        copy_to_server(source, target, batch=23, progress=_stop_in("audit", 200))
    part = _table_counts(pg_cluster, server.schema)
    assert part["visitors"] == source_count(source, "visitors")
    assert part["cards"] == source_count(source, "cards")
    assert 200 <= part["audit"] < source_count(source, "audit")
    # a sign-in on the desk meanwhile records no row: the copy goes on to the new head
    login = source.append("admin", "LOGIN", "account:admin", NOW)
    report = copy_to_server(source, server(), batch=23)  # another desk process finishes
    assert report.ok, report.differences
    assert report.resumed and not report.already_copied
    assert report.source_head_seq == login and report.migrated_seq == login + 1
    assert 0 < report.copied.get("audit", 0) < report.source_counts["audit"]
    done = _table_counts(pg_cluster, server.schema)
    assert done["cards"] == source_count(source, "cards")
    assert done["audit"] == source_count(source, "audit") + 1
    # run once more: nothing is written, the copy is verified again
    source.append("admin", "LOGIN", "account:admin", NOW)  # the next run's own sign-in
    again = copy_to_server(source, target, batch=23)
    assert again.ok and again.already_copied and again.batches == 0
    assert again.source_entries_after == 1 and again.source_head_seq == login
    assert _table_counts(pg_cluster, server.schema) == done


def source_count(store: SqlCipherStore, table: str) -> int:
    with store.reading() as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


# -- refusals -------------------------------------------------------------------------------


def test_a_server_holding_another_file_is_refused_before_any_write(
    pg_cluster: Any, source: SqlCipherStore, server: Any, tmp_path: Path
) -> None:
    target = server()
    target.record_admission(entry(77, NOW))  # a desk already works on this database
    before = _table_counts(pg_cluster, server.schema)
    with pytest.raises(StoreError) as refused:
        copy_to_server(source, target)
    assert refused.value.code is CopyCode.TARGET_NOT_EMPTY
    assert _table_counts(pg_cluster, server.schema) == before

    # a database holding the unfinished copy of another desk's file
    other = _build(tmp_path / "other", admissions=40)
    second, installation = fresh_schema(pg_cluster), InstallationKey.generate("test")
    conninfo = schema_conninfo(pg_cluster, second)
    with other.open() as store:
        store.use_audit_key(other.audit)
        with (
            PgStore.open(conninfo, installation, audit_key=other.audit, create=True) as theirs,
            pytest.raises(Interrupted),
        ):
            copy_to_server(store, theirs, batch=10, progress=_stop_after(2))
    before = _table_counts(pg_cluster, second)
    assert before["visitors"] > 0 and before["audit"] == 0
    with (
        PgStore.open(conninfo, installation, audit_key=source_audit_key(source)) as mixed,
        pytest.raises(StoreError) as refused,
    ):
        copy_to_server(source, mixed)
    assert refused.value.code is CopyCode.TARGET_NOT_EMPTY
    assert _table_counts(pg_cluster, second) == before


def test_a_source_written_since_the_copy_began_is_refused(
    pg_cluster: Any, source: SqlCipherStore, server: Any
) -> None:
    target = server()
    with pytest.raises(Interrupted):
        copy_to_server(source, target, batch=40, progress=_stop_after(3))
    source.record_admission(entry(171, NOW))  # the desk kept working on its file
    before = _table_counts(pg_cluster, server.schema)
    with pytest.raises(StoreError) as refused:
        copy_to_server(source, target, batch=40)
    assert refused.value.code is CopyCode.SOURCE_CHANGED
    assert _table_counts(pg_cluster, server.schema) == before


def test_a_server_store_with_another_audit_key_is_refused(
    pg_cluster: Any, source: SqlCipherStore, server: Any
) -> None:
    target = server(AuditKey.generate("another"))
    with pytest.raises(StoreError) as refused:
        copy_to_server(source, target)
    assert refused.value.code is CopyCode.AUDIT_KEY_DIFFERS
    assert sum(_table_counts(pg_cluster, server.schema).values()) == 0


def test_a_second_copy_into_the_same_database_waits_for_none(
    pg_cluster: Any, source: SqlCipherStore, server: Any
) -> None:
    target = server()
    with copy_lock(target), pytest.raises(StoreError) as refused:  # another copy runs
        copy_to_server(source, server())
    assert refused.value.code is CopyCode.RUNNING
    assert sum(_table_counts(pg_cluster, server.schema).values()) == 0
    assert copy_to_server(source, target).ok  # once it has ended


def test_a_source_whose_chain_does_not_verify_is_not_copied(
    pg_cluster: Any, source: SqlCipherStore, server: Any
) -> None:
    with source.lock:  # a visit changed in the file behind the chain's back
        source.connection.execute(
            "UPDATE visits SET operator = 'op-x' "
            "WHERE visit_id = (SELECT max(visit_id) FROM visits)"
        )
        source.connection.commit()
    target = server()
    with pytest.raises(StoreError) as refused:
        copy_to_server(source, target)
    assert refused.value.code is CopyCode.SOURCE_UNVERIFIED
    assert sum(_table_counts(pg_cluster, server.schema).values()) == 0


def test_a_wrong_file_key_opens_nothing(source_copy: Source) -> None:
    wrong = Source(source_copy.folder, DbKey.generate(source="test"), source_copy.audit)
    with pytest.raises(WrongKeyError) as refused:
        wrong.open()
    assert refused.value.code is StoreErrorCode.WRONG_KEY


def test_a_copy_changed_on_the_server_is_reported_with_what_differs(
    pg_cluster: Any, source: SqlCipherStore, server: Any
) -> None:
    target = server()
    assert copy_to_server(source, target).ok
    number = source.last_card_number()
    while source.card(number) is None:
        number -= 1
    _superuser(
        pg_cluster, server.schema, f"UPDATE cards SET print_count = 9 WHERE number = {number}"
    )
    _superuser(
        pg_cluster,
        server.schema,
        "DELETE FROM card_events WHERE event_id = (SELECT max(event_id) FROM card_events)",
    )
    report = copy_to_server(source, target)
    assert not report.ok and report.already_copied
    assert report.code == CopyCode.MISMATCH
    assert any(d.startswith("card_events:") for d in report.differences)
    assert report.audit is not None and report.audit.problem == AuditChainCode.ROW_CHANGED
    assert report.audit.row.startswith("card:")


# -- the command line -------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def _database(cluster: Any) -> str:
    """A new database owned by desk1 (a URL names a database, not a schema)."""
    name = f"copy_{secrets.token_hex(6)}"
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER desk1").format(sql.Identifier(name)))
    return name


def _cli(folder: Path, url: str, key_text: str) -> tuple[int, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADMISSION_")}
    env |= {
        "ADMISSION_DB_KEY": key_text,
        "ADMISSION_USER": "admin",
        "ADMISSION_PASSWORD": "admin-secret-1",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # the key file beside
        "QT_QPA_PLATFORM": "offscreen",
    }
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "db",
            "copy-to-server",
            "--url",
            url,
            "--batch",
            "25",
            "--data-dir",
            str(folder),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def test_the_command_line_copies_the_desk_file_and_refuses_a_wrong_key(
    pg_cluster: Any, tmp_path: Path
) -> None:
    key_text = secrets.token_hex(32)
    base = datetime.now(UTC) - 20 * DAY  # recent: the desk's own purge leaves it whole
    _build(tmp_path / "desk", admissions=150, base=base, key_text=key_text)
    name = _database(pg_cluster)
    url = (
        f"postgresql://desk1@{pg_cluster.host}:{pg_cluster.port}/{name}"
        f"?sslrootcert={pg_cluster.ca_cert}&sslcert={pg_cluster.client_cert('desk1')}"
        f"&sslkey={pg_cluster.client_key('desk1')}"
    )
    code, answer = _cli(tmp_path / "desk", url, secrets.token_hex(32))  # another key
    assert (code, answer["error"]) == (3, "WRONG_KEY")
    tables = _in_database(
        pg_cluster, name, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    )
    assert tables == 0  # nothing reached the server

    code, answer = _cli(tmp_path / "desk", url, key_text)
    assert code == 0, answer
    assert answer["ok"] and answer["code"] == "" and answer["differences"] == []
    assert answer["audit"]["ok"] and answer["source_counts"]["visits"] >= 20
    actor = _in_database(
        pg_cluster, name, f"SELECT actor FROM audit WHERE action = '{COPY_ACTION}'"
    )
    assert actor == "admin"
    code, again = _cli(tmp_path / "desk", url, key_text)  # run again: verified, not copied
    assert code == 0 and again["already_copied"] and again["batches"] == 0


def _in_database(cluster: Any, name: str, statement: str) -> Any:
    with psycopg.connect(cluster.superuser_conninfo(name), autocommit=True) as conn:
        row = conn.execute(statement.encode()).fetchone()
        return None if row is None else row[0]


KILLED_CHILD = """
import os, signal, sys
from pathlib import Path
from db.keys import DbKey
from db.pg.copy_file import copy_to_server, source_audit_key
from db.pg.store import PgStore
from db.store import SqlCipherStore

folder, key_text, conninfo, installation, after = sys.argv[1:6]
source = SqlCipherStore.open(Path(folder) / "visitors.db", DbKey.from_text(key_text), create=False)
target = PgStore.open(
    conninfo, DbKey.from_text(installation), audit_key=source_audit_key(source), create=True
)


def progress(step):
    if step.batches >= int(after):
        os.kill(os.getpid(), signal.SIGKILL)  # no clean-up of any kind


copy_to_server(source, target, batch=20, progress=progress)
"""


def test_a_copy_killed_twice_is_finished_by_the_next_run(
    pg_cluster: Any, source_copy: Source, source: SqlCipherStore
) -> None:
    schema = fresh_schema(pg_cluster)
    conninfo, installation = schema_conninfo(pg_cluster, schema), secrets.token_hex(32)
    args = [str(source_copy.folder), source_copy.key_text, conninfo, installation]
    source.close()  # the desk is not running while its file is copied
    for after in ("5", "30"):
        done = subprocess.run(
            [sys.executable, "-c", KILLED_CHILD, *args, after],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == -9, done.stderr
    part = _table_counts(pg_cluster, schema)
    assert part["visitors"] > 0 and part["audit"] < source_total(source_copy, "audit")
    with (
        source_copy.open() as reopened,
        PgStore.open(
            conninfo, DbKey.from_text(installation), audit_key=source_copy.audit
        ) as target,
    ):
        reopened.use_audit_key(source_copy.audit)
        report = copy_to_server(reopened, target, batch=20)
        assert report.ok, report.differences
        assert report.resumed and report.batches < 70
        assert "visitors" not in report.copied and "settings" not in report.copied
        done_counts = _table_counts(pg_cluster, schema)
        assert done_counts["cards"] == source_count(reopened, "cards")
        assert done_counts["audit"] == source_count(reopened, "audit") + 1


def source_total(source: Source, table: str) -> int:
    with source.open() as store:
        return source_count(store, table)
