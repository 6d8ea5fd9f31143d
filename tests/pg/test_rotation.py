"""Key rotation of the visitor file on the real server (art. 20.4; GDPR art. 32): after a
re-encryption every sealed value and blind index of every table is under the new data
key version, every value reads back the same, lookups, name search and admissions work
during and after, and the chain verifies; a run stopped at any point is finished by the
next; after a re-wrap only the new installation key opens the file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.accounts import Role
from admission.clock import FixedClock
from admission.errors import InvalidStateError
from admission.records import StaffMember, StaffRole
from admission.vouchers.model import NewVoucher
from db.accounts import Argon2Hasher, StoreAccounts
from db.audit_key import AuditKey
from db.keys import DbKey
from db.pg.crypto import InstallationKey, KeyRing, PgCryptoCode, PgCryptoError
from db.pg.rotation import (
    ENV_NEW_KEY,
    SEALED_TABLES,
    KeyRotation,
    PgRotationCode,
    _behind,
    reencrypt,
    refresh_ring,
    retire_old_versions,
    rewrap_installation_key,
)
from db.pg.store import PgStore
from db.voucher_book import StoreVoucherBook
from tests.db.factories import T0, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
SURNAMES = ["Peña Núñez", "García", "Zubizarreta", "Garcés", "O'Brien", "Ibarrola"]
GIVEN = ["José María", "Ainhoa", "Seán", "Lucía", "Iñigo"]
VISITORS = 30
# every (table, column) with a sealed value, for the checks in SQL
SEALED = [(t.name, c) for t in SEALED_TABLES for c in t.sealed]
SEALED += [("accounts", "record")]
SEALED += [("vouchers", c) for c in ("holder_name", "document_number", "close_reason")]


class Server:
    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.schema = fresh_schema(cluster)
        self.key = InstallationKey.generate("test")
        self.audit = AuditKey.generate("test")
        self.clock = FixedClock(NOW)
        self.stores: list[PgStore] = []

    def open(self, key: InstallationKey | DbKey | None = None) -> PgStore:
        store = PgStore.open(
            schema_conninfo(self.cluster, self.schema),
            self.key if key is None else key,
            audit_key=self.audit,
            create=True,
            clock=self.clock,
        )
        self.stores.append(store)
        return store

    def superuser(self, statement: str, params: tuple[Any, ...] = ()) -> Any:
        with psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            cur = conn.execute(statement.encode(), params)
            return cur.fetchall() if cur.description else None

    def key_versions(self) -> dict[str, set[int]]:
        """Per table, the key versions its rows name and its sealed values carry."""
        found: dict[str, set[int]] = {}
        for table in ("settings", "visitors", "visits", "observations", "bans", "staff"):
            rows = self.superuser(f"SELECT DISTINCT key_version FROM {table}")
            found.setdefault(table, set()).update(int(r[0]) for r in rows)
        for table in ("accounts", "vouchers"):
            rows = self.superuser(f"SELECT DISTINCT key_version FROM {table}")
            found.setdefault(table, set()).update(int(r[0]) for r in rows)
        for table, column in SEALED:  # the version in each envelope's header (bytes 2-3)
            rows = self.superuser(
                f"SELECT DISTINCT get_byte({column}, 1) * 256 + get_byte({column}, 2) "
                f"FROM {table} WHERE {column} IS NOT NULL"
            )
            found.setdefault(table, set()).update(int(r[0]) for r in rows)
        return found

    def dump(self) -> str:
        text = ""
        for (table,) in self.superuser(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ):
            rows = self.superuser(f'SELECT t::text FROM "{table}" AS t')
            text += "\n".join(r[0] for r in rows)
        return text


@pytest.fixture
def server(pg_cluster: Any) -> Iterator[Server]:
    made = Server(pg_cluster)
    try:
        yield made
    finally:
        for store in made.stores:
            store.close()


def person(n: int) -> tuple[str, str]:
    return SURNAMES[n % len(SURNAMES)], GIVEN[n % len(GIVEN)]


def voucher(n: int) -> NewVoucher:
    return NewVoucher(
        issued_at=NOW + timedelta(minutes=n),
        desk_id="DESK1",
        operator="op-1",
        holder_name=f"Holder Secreto {n}",
        document_type="DNI",
        document_number=f"DOCSECRET{n:04d}",
        card_type="DAY",
        price_cents=1000,
    )


def fill(server: Server, store: PgStore) -> None:
    for n in range(1, VISITORS + 1):
        surname, given = person(n)
        store.record_admission(
            entry(n, T0 + timedelta(minutes=n), surname=surname, given_names=given)
        )
    store.add_observation(1, "Pidió hoja de reclamaciones", "op-7", T0)
    ban = store.add_ban(dni(2), "Altercado en la sala de juego", "director-1", T0)
    store.lift_ban(ban.ban_id, "Revisado por la dirección", "director-1", T0 + timedelta(days=1))
    store.add_ban(dni(4), "Conducta impropia", "director-1", T0)
    store.add_staff(StaffMember(dni(3), "Croupier Secreta", StaffRole.STAFF), "director-1", T0)
    store.set_setting("casino_id", "MAD01")
    store.keyed_hash("anything")  # the audit subject secret
    accounts = StoreAccounts(store, server.clock, hasher=Argon2Hasher(**CHEAP))
    accounts.create_account("admin", "Ana Secreta", "admin-secret-1", [Role.ADMIN], actor=None)
    book = StoreVoucherBook(store)
    book.issue_voucher(voucher(1))
    book.cancel_voucher(book.issue_voucher(voucher(2)).number, "motivo privado", NOW)


def snapshot(server: Server, store: PgStore) -> dict[str, Any]:
    """Everything the desk reads back, in plain form."""
    book = StoreVoucherBook(store)
    accounts = StoreAccounts(store, server.clock, hasher=Argon2Hasher(**CHEAP))
    return {
        "visitors": [store.find_visitor(dni(n)) for n in range(1, VISITORS + 1)],
        "search": [v.file_number for v in store.search_visitors("garc")],
        "search_long": [v.file_number for v in store.search_visitors("zubizarreta ain")],
        "visits": [store.visits(n) for n in (1, 2, VISITORS)],
        "observations": store.observations(1),
        "bans": [store.bans(dni(2)), store.bans(dni(4))],
        "staff": store.staff_member(dni(3)),
        "setting": store.get_setting("casino_id"),
        "secret": store.keyed_hash("anything"),
        "vouchers": [book.voucher(1), book.voucher(2)],
        "account": accounts.sign_in("admin", "admin-secret-1").username,
    }


def actions(server: Server) -> list[tuple[str, dict[str, str]]]:
    rows = server.superuser("SELECT action, details FROM audit ORDER BY seq")
    return [(str(a), json.loads(str(d))) for a, d in rows]


def test_reencrypt_reseals_every_table_and_everything_reads_the_same(server: Server) -> None:
    store = server.open()
    fill(server, store)
    before = snapshot(server, store)
    assert len(before["search"]) == 10 and before["search_long"]
    assert set().union(*server.key_versions().values()) == {1}
    lines: list[str] = []
    report = reencrypt(store, server.key, batch_size=7, progress=lines.append)
    assert report.version == 2 and report.added and report.complete
    assert report.rows["visitors"] == VISITORS and report.rows["visits"] == VISITORS
    assert report.rows["accounts"] == 1 and report.rows["vouchers"] == 2
    assert report.batches >= VISITORS // 7 * 2
    assert all(versions == {2} for versions in server.key_versions().values())
    behind = store.read(lambda tx: _behind(tx, 2))  # every table with sealed values
    assert behind and not any(behind.values())
    assert any("visitors: 28 rows resealed" in line for line in lines)
    # the blind indexes are the new version's
    ring = store.ring
    for n in (1, 2, VISITORS):
        found = server.superuser("SELECT id_index FROM visitors WHERE file_number = %s", (n,))
        assert bytes(found[0][0]) == ring.identity_index(dni(n), 2)
        tokens = server.superuser("SELECT token FROM name_tokens WHERE file_number = %s", (n,))
        assert sorted(bytes(t[0]) for t in tokens) == sorted(
            ring.name_tokens(*person(n), version=2)
        )
    assert bytes(server.superuser("SELECT id_index FROM staff")[0][0]) == ring.identity_index(
        dni(3), 2
    )
    # and every visit's number index (the document number shown) is the new version's
    for visit_id, sealed, index in server.superuser(
        "SELECT visit_id, document_number, number_index FROM visits"
    ):
        shown = ring.open_text(
            bytes(sealed), table="visits", column="document_number", row=int(visit_id)
        )
        assert bytes(index) == ring.number_index(shown, 2)
    assert snapshot(server, store) == before
    # a desk opened now reads the same, and a new admission is sealed under version 2
    other = server.open()
    assert other.ring.current_version == 2 and snapshot(server, other) == before
    other.record_admission(entry(500, NOW, surname="Nuevo Garcilaso", given_names="Eva"))
    surname, given = person(1)
    store.record_admission(entry(1, NOW + timedelta(days=2), surname=surname, given_names=given))
    assert server.superuser("SELECT DISTINCT key_version FROM visitors") == [(2,)]
    assert len(store.search_visitors("garc")) == 11
    assert store.verify().ok and other.verify().ok
    done = [(a, d) for a, d in actions(server) if a.startswith("DATA_KEY")]
    assert [a for a, _ in done] == ["DATA_KEY_ADDED", "DATA_KEYS_REENCRYPTED"]
    assert done[0][1] == {"version": "2", "old_versions": "1"}
    assert done[1][1]["rows_visitors"] == str(VISITORS) and done[1][1]["version"] == "2"


def test_the_server_holds_no_known_name_after_a_reencryption(server: Server) -> None:
    store = server.open()
    fill(server, store)
    reencrypt(store, server.key, batch_size=5)
    dump = server.dump()
    assert "op-7" in dump and "DESK1" in dump  # the dump does hold the rows
    needles = ["Peña", "PENA", "García", "GARCIA", "Zubizarreta", "Ainhoa", "Croupier"]
    needles += ["SUP000001", dni(1).number, dni(3).number, "1980-05-17", "reclamaciones"]
    needles += ["Altercado", "Revisado", "MAD01", "Ana Secreta", "argon2", "Holder", "DOCSECRET"]
    needles += ["motivo privado"]
    for needle in needles:
        assert needle not in dump, needle


def test_a_run_stopped_after_some_batches_is_finished_by_the_next(server: Server) -> None:
    store = server.open()
    fill(server, store)
    before = snapshot(server, store)
    seen: list[str] = []

    def stop_after_three(line: str) -> None:
        if line.startswith("visitors:"):
            seen.append(line)
        if len(seen) == 3:  # three batches of visitors committed
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reencrypt(store, server.key, batch_size=4, progress=stop_after_three)
    versions = server.superuser("SELECT key_version, count(*) FROM visitors GROUP BY 1 ORDER BY 1")
    assert versions == [(1, VISITORS - 12), (2, 12)]  # half done, nothing half-sealed
    # mid-way: every lookup, the name search and admissions work, on this desk and on a
    # desk opened now (it loads both versions)
    assert snapshot(server, store) == before
    late = server.open()
    assert late.ring.versions == (2, 1) and snapshot(server, late) == before
    store.record_admission(entry(VISITORS, NOW, surname="Ibarrola", given_names="Lucía"))
    late.record_admission(entry(700, NOW, surname="García Nueva", given_names="Ana"))
    assert late.find_visitor(dni(VISITORS)) is not None
    assert len(store.search_visitors("garc")) == 11
    assert store.verify().ok
    # a second run (another desk, as after a restart) finishes under the same version
    report = reencrypt(late, server.key, batch_size=4)
    assert report.version == 2 and not report.added and report.complete
    # visitor 30 was resealed by its admission, the new one sealed under 2 at once
    assert report.rows["visitors"] == VISITORS - 12 - 1
    assert server.superuser("SELECT version FROM data_keys ORDER BY 1") == [(1,), (2,)]
    assert all(versions == {2} for versions in server.key_versions().values())
    after = snapshot(server, late)
    assert after["visitors"][:-1] == before["visitors"][:-1] and after["account"] == "admin"
    assert store.verify().ok


CHILD = textwrap.dedent(
    """
    import os, sys, time
    from admission.clock import FixedClock
    from db.audit_key import AuditKey
    from db.pg.crypto import InstallationKey
    from db.pg.rotation import reencrypt
    from db.pg.store import PgStore

    key = InstallationKey(bytes.fromhex(os.environ["T_KEY"]))
    store = PgStore.open(
        os.environ["T_CONNINFO"], key, audit_key=AuditKey.from_hex(os.environ["T_AUDIT"])
    )

    def progress(line):
        print(line, flush=True)
        time.sleep(0.05)

    reencrypt(store, key, batch_size=1, progress=progress)
    print("finished", flush=True)
    """
)


def test_a_process_killed_during_a_reencryption_leaves_nothing_half_sealed(
    server: Server,
) -> None:
    store = server.open()
    fill(server, store)
    before = snapshot(server, store)
    env = dict(os.environ)
    env.update(
        T_KEY=server.key._raw.hex(),
        T_AUDIT=server.audit.hex(),
        T_CONNINFO=schema_conninfo(server.cluster, server.schema),
        PYTHONPATH=str(ROOT),
    )
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    try:
        for _ in range(12):  # the announcement and 11 batches of one row
            assert child.stdout.readline()
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        child.stdout.close()
    counts = dict(server.superuser("SELECT key_version, count(*) FROM visitors GROUP BY 1"))
    assert counts.get(2, 0) >= 1 and counts.get(1, 0) >= 1
    fresh = server.open()
    assert snapshot(server, fresh) == before
    report = reencrypt(fresh, server.key, batch_size=50)
    assert not report.added and report.complete
    assert all(versions == {2} for versions in server.key_versions().values())
    assert snapshot(server, fresh) == before and fresh.verify().ok


def test_old_versions_are_retired_once_no_row_uses_them(server: Server) -> None:
    store = server.open()
    fill(server, store)

    def stop(line: str) -> None:
        if "rows resealed" in line:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reencrypt(store, server.key, batch_size=5, progress=stop)
    with pytest.raises(InvalidStateError) as refused:
        retire_old_versions(store)
    assert refused.value.code is PgRotationCode.OLD_VERSION_IN_USE
    report = reencrypt(store, server.key, batch_size=50, retire=True)
    assert report.retired == (1,) and report.old_versions == ()
    assert server.superuser("SELECT version FROM data_keys") == [(2,)]
    assert store.ring.versions == (2,)
    reopened = server.open()
    assert reopened.ring.versions == (2,) and reopened.find_visitor(dni(7)) is not None
    assert reopened.verify().ok
    assert retire_old_versions(store).retired == ()  # nothing left: nothing written
    # the next rotation adds version 3 (not a resumed 2)
    third = reencrypt(reopened, server.key, batch_size=50, retire=True)
    assert third.version == 3 and third.added and third.retired == (2,)
    assert all(versions == {3} for versions in server.key_versions().values())
    assert [a for a, _ in actions(server) if a == "DATA_KEYS_RETIRED"] == ["DATA_KEYS_RETIRED"] * 2


def test_after_a_rewrap_only_the_new_installation_key_opens_the_file(server: Server) -> None:
    store = server.open()
    fill(server, store)
    reencrypt(store, server.key, batch_size=50)  # two versions to re-wrap
    before = snapshot(server, store)
    blobs = server.superuser("SELECT version, key_tag FROM data_keys ORDER BY 1")
    new = InstallationKey.generate("new")
    report = rewrap_installation_key(store, new)
    assert report.rewrapped == (1, 2) and report.kept == () and report.key_id == new.key_id
    assert server.superuser("SELECT version, key_tag FROM data_keys ORDER BY 1") == blobs
    assert snapshot(server, store) == before  # the running desk goes on
    with pytest.raises(PgCryptoError) as refused:
        server.open(server.key)
    assert refused.value.code is PgCryptoCode.INSTALLATION_KEY_WRONG
    reopened = server.open(new)
    assert snapshot(server, reopened) == before and reopened.verify().ok
    again = rewrap_installation_key(reopened, new)  # a second run checks and keeps
    assert again.rewrapped == () and again.kept == (1, 2)
    rewraps = [d for a, d in actions(server) if a == "DATA_KEYS_REWRAPPED"]
    assert rewraps == [{"versions": "1,2", "key_id": new.key_id}]
    # a re-encryption after it wraps its version under the new key
    assert reencrypt(reopened, new, batch_size=50).version == 3
    with pytest.raises(PgCryptoError):
        reencrypt(reopened, server.key)  # the old key is refused before anything is written
    assert server.superuser("SELECT count(*) FROM data_keys") == [(3,)]


def test_the_command_rotates_with_a_desk_key_from_the_environment(server: Server) -> None:
    old = DbKey.generate("old")
    store = server.open(old)
    fill(server, store)
    new_text = DbKey.generate().hex()
    rotation = KeyRotation(store, old, environ={ENV_NEW_KEY: new_text})
    lines: list[str] = []
    answer = rotation.rotate(mode="rewrap", batch=10, progress=lines.append, actor="admin")
    assert answer["rewrapped"] == [1] and lines
    json.dumps(answer)
    with pytest.raises(PgCryptoError):
        server.open(old)
    new = DbKey.from_text(new_text)
    reopened = server.open(new)
    answer = rotation.rotate(
        mode="reencrypt-retire", batch=10, progress=lines.append, actor="admin"
    )
    assert json.loads(json.dumps(answer))["complete"] is True
    assert answer["version"] == 2 and answer["retired"] == [1]
    assert all(versions == {2} for versions in server.key_versions().values())
    reopened.close()
    assert server.open(new).find_visitor(dni(5)) is not None
    done = [a for a, _ in actions(server) if a.startswith("DATA_KEY")]
    expected = ["DATA_KEYS_REWRAPPED", "DATA_KEY_ADDED", "DATA_KEYS_REENCRYPTED"]
    assert done == [*expected, "DATA_KEYS_RETIRED"]
    assert server.superuser("SELECT DISTINCT actor FROM audit WHERE action LIKE 'DATA_KEY%%'") == [
        ("admin",)
    ]
    with pytest.raises(InvalidStateError) as refused:
        rotation.rotate(mode="spin", batch=10, progress=lines.append, actor="admin")
    assert refused.value.code is PgRotationCode.MODE_UNKNOWN
    with pytest.raises(InvalidStateError) as missing:
        KeyRotation(store, new, environ={}).rotate(
            mode="rewrap", batch=10, progress=lines.append, actor="admin"
        )
    assert missing.value.code is PgRotationCode.NEW_KEY_MISSING


def test_one_rotation_at_a_time_and_no_unknown_sealed_table(server: Server) -> None:
    store = server.open()
    fill(server, store)
    other = server.open()
    refusals: list[object] = []

    def meanwhile(line: str) -> None:
        if not refusals:
            try:
                retire_old_versions(other)
            except InvalidStateError as refused:
                refusals.append(refused.code)

    reencrypt(store, server.key, batch_size=50, progress=meanwhile)
    assert refusals == [PgRotationCode.RUNNING]
    server.superuser("CREATE TABLE extra (id int, secret bytea, key_version integer)")
    server.superuser("ALTER TABLE extra OWNER TO desk1")
    with pytest.raises(InvalidStateError) as unknown:
        reencrypt(store, server.key)
    assert unknown.value.code is PgRotationCode.TABLE_UNKNOWN
    assert server.superuser("SELECT count(*) FROM data_keys") == [(2,)]


def test_a_desk_opened_before_loads_the_new_version_when_it_refreshes(server: Server) -> None:
    store = server.open()
    fill(server, store)
    before = snapshot(server, store)
    earlier = server.open()  # another desk, open before the rotation
    assert not refresh_ring(earlier, server.key)  # nothing new: one small read
    reencrypt(store, server.key, batch_size=50)
    # it holds only version 1: the resealed rows are out of its reach until it refreshes
    assert earlier.ring.versions == (1,) and earlier.find_visitor(dni(1)) is None
    assert refresh_ring(earlier, server.key) and earlier.ring.versions == (2, 1)
    assert snapshot(server, earlier) == before
    earlier.record_admission(entry(800, NOW, surname="Tardía", given_names="Desk"))
    retire_old_versions(store)
    assert refresh_ring(earlier, server.key) and earlier.ring.versions == (2,)
    assert not refresh_ring(earlier, server.key)
    assert all(versions == {2} for versions in server.key_versions().values())
    assert earlier.verify().ok


def test_a_ring_keeps_what_a_rewrap_and_a_retirement_need() -> None:
    key = InstallationKey.generate()
    ring, record = KeyRing.create(key, "db-1")
    ring2, record2 = ring.with_new_version(key)
    other = InstallationKey.generate()
    rewrapped = [ring2.wrapped(1, other), ring2.wrapped(2, other)]
    loaded = KeyRing.load(other, "db-1", rewrapped)
    assert loaded.versions == (2, 1) and loaded.key_tag(1) == record.key_tag
    sealed = ring.seal_text("Peña", table="t", column="c", row=1)
    assert loaded.open_text(sealed, table="t", column="c", row=1) == "Peña"
    only = ring2.retaining([])
    assert only.versions == (2,) and only.key_tag(2) == record2.key_tag
    with pytest.raises(PgCryptoError):
        only.open_text(sealed, table="t", column="c", row=1)
