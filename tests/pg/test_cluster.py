"""The throwaway server: desks connect over TLS with their own certificates, every
refusal has its code, and sealed values round-trip through a real table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import pytest

from admission.errors import StoreError
from admission.identity import IdentityKey
from db.pg.connect import PgConnectCode, classify, connect, tls_conninfo
from db.pg.crypto import (
    InstallationKey,
    KeyRing,
    PgCryptoCode,
    PgCryptoError,
    SealedRow,
    run_reencrypt,
)
from tests.pg.conftest import load_tool

TABLE = "sealed_visitors"
PEOPLE = [
    (IdentityKey.of("DNI", "ESP", "12345678Z"), "GARCÍA LÓPEZ", "ANA"),
    (IdentityKey.of("NIE", "ESP", "X1234567L"), "GARCÍA", "JOSÉ MARÍA"),
    (IdentityKey.of("PASSPORT", "FRA", "18AB12345"), "DUPONT", "ANABEL"),
    (IdentityKey.of("DNI", "ESP", "87654321X"), "PEÑA NÚÑEZ", "ÁNGEL"),
]


def refusal(conninfo: str) -> PgConnectCode:
    with pytest.raises(StoreError) as excinfo:
        connect(conninfo).close()
    code = excinfo.value.code
    assert isinstance(code, PgConnectCode)
    return code


# -- connections ------------------------------------------------------------------------
def test_a_desk_connects_over_tls_with_its_own_certificate(pg_cluster: Any) -> None:
    with connect(pg_cluster.desk_conninfo("desk1")) as conn:
        row = conn.execute(
            "SELECT current_user, ssl, version, client_dn FROM pg_stat_ssl "
            "WHERE pid = pg_backend_pid()"
        ).fetchone()
    assert row is not None
    user, ssl, version, client_dn = row
    assert (user, ssl, version) == ("desk1", True, "TLSv1.3")
    assert "CN=desk1" in client_dn


def test_the_desk_connection_string_is_the_product_s(pg_cluster: Any) -> None:
    conninfo = tls_conninfo(
        host="localhost",
        hostaddr="127.0.0.1",
        port=pg_cluster.port,
        dbname=pg_cluster.database,
        user="desk2",
        root_cert=pg_cluster.ca_cert,
        client_cert=pg_cluster.client_cert("desk2"),
        client_key=pg_cluster.client_key("desk2"),
    )
    with connect(conninfo) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("desk2",)


def test_a_desk_without_a_client_certificate_is_refused(pg_cluster: Any) -> None:
    assert refusal(pg_cluster.desk_conninfo("desk1", client_cert=False)) is (
        PgConnectCode.CLIENT_CERT_REFUSED
    )


def test_a_client_certificate_of_another_ca_or_another_desk_is_refused(pg_cluster: Any) -> None:
    tool = load_tool()
    ca_key, ca = tool.make_ca("a rogue CA")
    key, cert = tool.issue(ca_key, ca, "desk1", server=False)
    tool.write_cert(pg_cluster.client_dir / "rogue.crt", cert)
    tool.write_key(pg_cluster.client_dir / "rogue.key", key)
    rogue = pg_cluster.desk_conninfo("desk1")
    rogue = rogue.replace(
        str(pg_cluster.client_cert("desk1")), str(pg_cluster.client_dir / "rogue.crt")
    )
    rogue = rogue.replace(
        str(pg_cluster.client_key("desk1")), str(pg_cluster.client_dir / "rogue.key")
    )
    assert refusal(rogue) is PgConnectCode.CLIENT_CERT_REFUSED
    # desk1's certificate presented as desk2: the common name is not the role
    borrowed = pg_cluster.desk_conninfo("desk1").replace("user=desk1", "user=desk2")
    assert refusal(borrowed) is PgConnectCode.CLIENT_CERT_REFUSED


def test_a_server_the_desk_cannot_authenticate_is_refused(pg_cluster: Any) -> None:
    # the desk trusts another CA than the one that signed the server's certificate
    assert refusal(pg_cluster.desk_conninfo("desk1", root_cert=pg_cluster.other_ca_cert)) is (
        PgConnectCode.SERVER_CERT_REFUSED
    )
    # the right CA, another host name (verify-full checks it)
    renamed = pg_cluster.desk_conninfo("desk1").replace("host=localhost", "host=db.example")
    assert refusal(renamed) is PgConnectCode.SERVER_CERT_REFUSED


def test_without_tls_or_without_a_server_the_codes_say_so(pg_cluster: Any) -> None:
    assert refusal(pg_cluster.desk_conninfo("desk1", sslmode="disable")) is (
        PgConnectCode.ACCESS_REFUSED
    )
    tool = load_tool()
    nobody = pg_cluster.desk_conninfo("desk1").replace(
        f"port={pg_cluster.port}", f"port={tool.free_port()}"
    )
    assert refusal(nobody) is PgConnectCode.UNREACHABLE
    assert classify("something else entirely") is PgConnectCode.CONNECT_FAILED


# -- sealed values in a real table ------------------------------------------------------
@pytest.fixture(scope="module")
def sealed_table(pg_cluster: Any) -> Iterator[tuple[InstallationKey, KeyRing]]:
    with psycopg.connect(pg_cluster.superuser_conninfo(), autocommit=True) as admin:
        admin.execute(
            f"CREATE TABLE {TABLE} (file_number integer PRIMARY KEY, "
            "key_version smallint NOT NULL, id_index bytea NOT NULL, "
            "surname bytea NOT NULL, given_names bytea NOT NULL)"
        )
        admin.execute(f"CREATE INDEX ON {TABLE} (id_index)")
        admin.execute(
            "CREATE TABLE sealed_name_tokens (file_number integer NOT NULL, token bytea NOT NULL,"
            " PRIMARY KEY (token, file_number))"
        )
        admin.execute(f"GRANT SELECT, INSERT, UPDATE ON {TABLE} TO desk1")
        admin.execute("GRANT SELECT, INSERT, DELETE ON sealed_name_tokens TO desk1")
    installation = InstallationKey.generate()
    ring, _record = KeyRing.create(installation, "test-database")
    with connect(pg_cluster.desk_conninfo("desk1")) as conn, conn.transaction():
        for number, (identity, surname, given) in enumerate(PEOPLE, start=1):
            conn.execute(
                f"INSERT INTO {TABLE} VALUES (%s, %s, %s, %s, %s)",
                (
                    number,
                    ring.current_version,
                    ring.identity_index(identity),
                    ring.seal_text(surname, table=TABLE, column="surname", row=number),
                    ring.seal_text(given, table=TABLE, column="given_names", row=number),
                ),
            )
            conn.cursor().executemany(
                "INSERT INTO sealed_name_tokens VALUES (%s, %s)",
                [(number, token) for token in ring.name_tokens(surname, given)],
            )
    yield installation, ring


def _open(ring: KeyRing, number: int, surname: bytes, given: bytes) -> tuple[str, str]:
    return (
        ring.open_text(surname, table=TABLE, column="surname", row=number),
        ring.open_text(given, table=TABLE, column="given_names", row=number),
    )


def test_an_exact_lookup_by_document_finds_the_sealed_row(
    pg_cluster: Any, sealed_table: tuple[InstallationKey, KeyRing]
) -> None:
    _installation, ring = sealed_table
    with connect(pg_cluster.desk_conninfo("desk1")) as conn:
        rows = conn.execute(
            f"SELECT file_number, surname, given_names FROM {TABLE} WHERE id_index = ANY(%s)",
            (list(ring.identity_indexes(IdentityKey.of("NIE", "ESP", "x-1234567-l"))),),
        ).fetchall()
        stored = conn.execute(f"SELECT surname FROM {TABLE}").fetchall()
    assert len(rows) == 1
    number, surname, given = rows[0]
    assert number == 2 and _open(ring, number, surname, given) == ("GARCÍA", "JOSÉ MARÍA")
    assert all(b"GARC" not in bytes(value) for (value,) in stored)  # the server sees no name


def test_a_name_search_narrows_on_the_server_and_checks_in_the_desk(
    pg_cluster: Any, sealed_table: tuple[InstallationKey, KeyRing]
) -> None:
    _installation, ring = sealed_table
    query = ring.name_query("garcia an")
    tokens = list(query.tokens[ring.current_version])
    with connect(pg_cluster.desk_conninfo("desk1")) as conn:
        rows = conn.execute(
            f"SELECT v.file_number, v.surname, v.given_names FROM {TABLE} AS v "
            "WHERE v.file_number IN (SELECT file_number FROM sealed_name_tokens "
            "WHERE token = ANY(%s) GROUP BY file_number HAVING count(*) = %s) "
            "ORDER BY v.file_number",
            (tokens, len(tokens)),
        ).fetchall()
    found = [_open(ring, n, s, g) for n, s, g in rows]
    assert query.exact and found == [("GARCÍA LÓPEZ", "ANA")]


def test_a_value_moved_on_the_server_is_refused(
    pg_cluster: Any, sealed_table: tuple[InstallationKey, KeyRing]
) -> None:
    _installation, ring = sealed_table
    with psycopg.connect(pg_cluster.superuser_conninfo()) as admin:
        # an administrator copies visitor 3's surname onto visitor 4's row (rolled back)
        admin.execute(
            f"UPDATE {TABLE} SET surname = (SELECT surname FROM {TABLE} WHERE file_number = 3) "
            "WHERE file_number = 4"
        )
        row = admin.execute(f"SELECT surname FROM {TABLE} WHERE file_number = 4").fetchone()
        admin.rollback()
    assert row is not None
    with pytest.raises(PgCryptoError) as excinfo:
        ring.open_text(row[0], table=TABLE, column="surname", row=4)
    assert excinfo.value.code is PgCryptoCode.VALUE_TAMPERED


# last: it leaves the table under a second key version
def test_reencryption_on_the_server_resumes_after_an_interruption(
    pg_cluster: Any, sealed_table: tuple[InstallationKey, KeyRing]
) -> None:
    installation, ring1 = sealed_table
    ring2, _record = ring1.with_new_version(installation)

    with connect(pg_cluster.desk_conninfo("desk1")) as conn:

        def fetch(current: int, limit: int) -> Sequence[SealedRow]:
            rows = conn.execute(
                f"SELECT file_number, key_version, surname, given_names FROM {TABLE} "
                "WHERE key_version <> %s ORDER BY file_number LIMIT %s",
                (current, limit),
            ).fetchall()
            return [
                SealedRow(TABLE, n, v, {"surname": bytes(s), "given_names": bytes(g)})
                for n, v, s, g in rows
            ]

        writes = 0

        def apply(batch: Sequence[SealedRow]) -> None:
            nonlocal writes
            writes += 1
            with conn.transaction():
                for row in batch:
                    conn.execute(
                        f"UPDATE {TABLE} SET key_version = %s, surname = %s, given_names = %s "
                        "WHERE file_number = %s",
                        (
                            row.key_version,
                            row.values["surname"],
                            row.values["given_names"],
                            row.row,
                        ),
                    )
                    if writes == 2:
                        raise ConnectionError("the network went away")  # rolled back

        with pytest.raises(ConnectionError):
            run_reencrypt(fetch, apply, ring2, batch_size=1)
        versions = conn.execute(f"SELECT key_version FROM {TABLE} ORDER BY file_number").fetchall()
        assert [v for (v,) in versions] == [2, 1, 1, 1]
        report = run_reencrypt(fetch, apply, ring2, batch_size=2)
        assert report.rows == 3
        rows = conn.execute(
            f"SELECT file_number, key_version, surname, given_names FROM {TABLE} "
            "ORDER BY file_number"
        ).fetchall()
    assert {v for _n, v, _s, _g in rows} == {2}
    only_new = KeyRing.load(installation, "test-database", [_record])
    opened = [_open(only_new, n, s, g) for n, _v, s, g in rows]
    assert opened == [(surname, given) for _identity, surname, given in PEOPLE]
