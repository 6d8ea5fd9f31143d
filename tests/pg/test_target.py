"""Which store a desk uses (db/pg/target.py): the environment over the settings over the
SQLCipher file; every way a server URL is refused has its code; a valid one connects to
the real server, over TLS or over its Unix socket."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from psycopg.conninfo import conninfo_to_dict

from admission import catalogue
from admission.errors import ConfigError, StoreError
from db.pg.connect import PgConnectCode
from db.pg.target import (
    CERT_SUBDIR,
    ENV_VAR,
    PgHost,
    PgTarget,
    PgTargetCode,
    SqlCipherTarget,
    TargetError,
    TargetSource,
    TlsFiles,
    default_cert_dir,
    parse_url,
    resolve_target,
)

SECRET = "s3cr3t-Pa55"


@pytest.fixture
def cert_dir(tmp_path: Path) -> Path:
    """A desk's certificate folder with libpq's default names (contents unchecked here)."""
    folder = tmp_path / CERT_SUBDIR
    folder.mkdir()
    for name in ("root.crt", "postgresql.crt", "postgresql.key"):
        (folder / name).write_text("-----BEGIN TEST-----\n", encoding="ascii")
    (folder / "postgresql.key").chmod(0o600)
    return folder


def refused(url: str, cert_dir: Path, source: TargetSource = TargetSource.SETTINGS) -> TargetError:
    with pytest.raises(TargetError) as excinfo:
        parse_url(url, source=source, cert_dir=cert_dir)
    error = excinfo.value
    assert isinstance(error, ConfigError)
    assert isinstance(error.code, PgTargetCode)
    return error


# -- which store ------------------------------------------------------------------------
def test_neither_variable_nor_setting_keeps_the_sqlcipher_file(cert_dir: Path) -> None:
    for settings_url in (None, "", "   "):
        for environ in ({}, {ENV_VAR: ""}, {ENV_VAR: "  "}, {"OTHER": "postgresql://h/db"}):
            target = resolve_target(settings_url, environ, cert_dir=cert_dir)
            assert target == SqlCipherTarget()
            assert target.kind == "sqlcipher" and target.source is TargetSource.DEFAULT
            assert target.describe() == "SQLCipher"


def test_the_setting_names_the_server(cert_dir: Path) -> None:
    target = resolve_target("postgresql://desk1@db.casino/admission", {}, cert_dir=cert_dir)
    assert isinstance(target, PgTarget) and target.kind == "postgresql"
    assert target.source is TargetSource.SETTINGS
    assert (target.host, target.port, target.dbname, target.user) == (
        "db.casino",
        5432,
        "admission",
        "desk1",
    )
    # the files default to libpq's names inside the desk's folder
    assert target.tls == TlsFiles(
        cert_dir / "root.crt", cert_dir / "postgresql.crt", cert_dir / "postgresql.key"
    )
    assert not target.is_socket and target.hostaddr is None and target.connect_timeout == 5


def test_the_environment_wins_over_the_setting(cert_dir: Path) -> None:
    target = resolve_target(
        "postgresql://desk1@db.casino/admission",
        {ENV_VAR: " postgres://desk2@annex.casino:6543/annex "},
        cert_dir=cert_dir,
    )
    assert isinstance(target, PgTarget)
    assert target.source is TargetSource.ENVIRONMENT
    assert target.describe() == "annex.casino:6543/annex"
    assert target.user == "desk2"


def test_a_bad_url_is_refused_never_replaced_by_the_file(cert_dir: Path) -> None:
    # a desk meant for the shared file must not open a file of its own (art. 20.4)
    with pytest.raises(TargetError) as excinfo:
        resolve_target("postgresql://desk1@db.casino/admission", {ENV_VAR: "mysql://h/db"})
    assert excinfo.value.code is PgTargetCode.BAD_SCHEME
    assert ENV_VAR in str(excinfo.value)  # says which of the two to fix
    with pytest.raises(TargetError) as excinfo:
        resolve_target("sqlite:///visitors.db", {}, cert_dir=cert_dir)
    assert "database.url" in str(excinfo.value)


# -- refusals ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "db.casino:5432/admission",
        "mysql://desk1@db.casino/admission",
        "http://desk1@db.casino/admission",
        "host=db.casino dbname=admission user=desk1",
        "postgresql:/db.casino/admission",
        "POSTGRESQL://desk1@db.casino/admission",  # libpq reads the scheme in lower case
    ],
)
def test_a_url_that_is_not_postgresql_is_refused(url: str, cert_dir: Path) -> None:
    assert refused(url, cert_dir).code is PgTargetCode.BAD_SCHEME


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://desk1@db.casino:0/admission",
        "postgresql://desk1@db.casino:70000/admission",
        "postgresql://desk1@db.casino:port/admission",
        "postgresql://desk1@db.casino:5432/admission?connect_timeout=0",
        "postgresql://desk1@db.casino:5432/admission?connect_timeout=soon",
        "postgresql://desk1@db1.casino,db2.casino/admission?hostaddr=10.0.0.1",
        "postgresql://desk1@db1.casino:5432,db2.casino:5432,db3/admission?port=1,2",
        "postgresql://desk1@db1.casino,/admission",
        "postgresql://desk1@db1.casino:5432,db2.casino:0/admission",
        "postgresql://desk1@db1.casino,db2.casino/admission?hostaddr=10.0.0.1,nowhere",
        "postgresql:///admission?host=/run/pgA,db2.casino&user=desk1",
        "postgresql:///admission?host=/run/pgA,/run/pgB&user=desk1&hostaddr=,10.0.0.2",
        "postgresql://desk1@db.casino/admission?hostaddr=not-an-ip",
        "postgresql://desk1@%2Fvar%2Frun%2Fpostgresql/admission?hostaddr=127.0.0.1",
        "postgresql://desk1@db.casino/admission?sslmode",
    ],
)
def test_a_url_libpq_or_the_desk_cannot_use_is_refused(url: str, cert_dir: Path) -> None:
    assert refused(url, cert_dir).code is PgTargetCode.BAD_URL


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://desk1:{SECRET}@db.casino/admission",
        f"postgres://desk1:{quote(SECRET)}@db.casino:5432/admission?sslmode=verify-full",
        "postgresql://desk1:@db.casino/admission",  # even an empty one
        f"postgresql://desk1@db.casino/admission?password={SECRET}",
        f"postgresql://desk1@db.casino/admission?sslpassword={SECRET}",
    ],
)
def test_a_password_in_the_url_is_refused_and_never_repeated(url: str, cert_dir: Path) -> None:
    for source in (TargetSource.SETTINGS, TargetSource.ENVIRONMENT):
        error = refused(url, cert_dir, source)
        assert error.code is PgTargetCode.PASSWORD_IN_URL
        assert SECRET not in str(error) and quote(SECRET) not in str(error)
        assert "desk1" not in str(error)


def test_libpq_s_own_message_which_quotes_the_url_is_not_kept(cert_dir: Path) -> None:
    # libpq answers 'invalid URI query parameter: "..."'-like texts quoting the input
    error = refused(f"postgresql://desk1@db.casino/admission?{SECRET}=1", cert_dir)
    assert error.code is PgTargetCode.BAD_URL
    assert SECRET not in str(error)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://desk1@db.casino/admission?passfile=/root/.pgpass",
        "postgresql://desk1@db.casino/admission?options=-c%20statement_timeout%3D0",
        "postgresql://desk1@db.casino/admission?gssencmode=disable",
        "postgresql://desk1@db.casino/admission?load_balance_hosts=random",
    ],
)
def test_options_the_desk_does_not_take_are_refused_by_name(url: str, cert_dir: Path) -> None:
    error = refused(url, cert_dir)
    assert error.code is PgTargetCode.PARAMETER_REFUSED
    name = url.rsplit("?", 1)[1].split("=", 1)[0]
    assert f"parameters not accepted: {name}" in str(error)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql:///admission?user=desk1",  # no host: libpq's default would decide
        "postgresql://desk1@db.casino",  # no database
        "postgresql://desk1@db.casino/",
        "postgresql://db.casino/admission",  # no role (the certificate's common name)
    ],
)
def test_a_url_must_name_host_database_and_role(url: str, cert_dir: Path) -> None:
    assert refused(url, cert_dir).code is PgTargetCode.INCOMPLETE


@pytest.mark.parametrize(
    "host",
    [
        "db..casino",  # an empty label
        ".casino",
        "x" * 64 + ".casino",  # a label over 63 bytes
        ".".join(["x" * 60] * 5),  # 304 bytes in all
        "".join(chr(0xE0 + i % 30) for i in range(60)) + ".es",  # its xn-- form is longer
        "db%20casino",  # a space
        "db%01casino",  # a control character
    ],
)
def test_a_host_the_resolver_cannot_take_is_refused_before_any_look_up(
    host: str, cert_dir: Path
) -> None:
    # the resolver's own refusal of such a name was a traceback (UnicodeError)
    error = refused(f"postgresql://desk1@{host}/admission", cert_dir)
    assert error.code is PgTargetCode.BAD_HOST


@pytest.mark.parametrize(
    "host", ["db.casino.", "x" * 63 + ".casino", "ñandú.casino.es", "127.0.0.1", "[::1]"]
)
def test_a_host_within_the_limits_is_taken(host: str, cert_dir: Path) -> None:
    target = parse_url(f"postgresql://desk1@{host}/admission", cert_dir=cert_dir)
    assert target.host


@pytest.mark.parametrize("mode", ["disable", "allow", "prefer", "require", "verify-ca", "bogus"])
def test_over_tcp_only_verify_full_is_accepted(mode: str, cert_dir: Path) -> None:
    error = refused(f"postgresql://desk1@db.casino/admission?sslmode={mode}", cert_dir)
    assert error.code is PgTargetCode.TLS_TOO_WEAK
    assert f"sslmode={mode}" in str(error)


@pytest.mark.parametrize("name", ["root.crt", "postgresql.crt", "postgresql.key"])
def test_each_missing_file_is_refused(name: str, cert_dir: Path) -> None:
    (cert_dir / name).unlink()
    error = refused("postgresql://desk1@db.casino/admission", cert_dir)
    assert error.code is PgTargetCode.CERT_MISSING
    assert str(cert_dir / name) in str(error)


def test_named_files_are_taken_from_the_folder_or_as_given(cert_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "etc"
    elsewhere.mkdir()
    (elsewhere / "casino-ca.pem").write_text("x", encoding="ascii")
    (cert_dir / "desk1.crt").write_text("x", encoding="ascii")
    (cert_dir / "desk1.key").write_text("x", encoding="ascii")
    (cert_dir / "desk1.key").chmod(0o600)
    url = (
        "postgresql://desk1@db.casino/admission?sslmode=verify-full"
        f"&sslrootcert={quote(str(elsewhere / 'casino-ca.pem'), safe='')}"
        "&sslcert=desk1.crt&sslkey=desk1.key"
    )
    target = parse_url(url, cert_dir=cert_dir)
    assert target.tls == TlsFiles(
        elsewhere / "casino-ca.pem", cert_dir / "desk1.crt", cert_dir / "desk1.key"
    )
    conninfo = target.conninfo()
    assert "sslmode=verify-full" in conninfo
    assert f"sslrootcert={elsewhere / 'casino-ca.pem'}" in conninfo
    assert f"sslkey={cert_dir / 'desk1.key'}" in conninfo
    # a named file that is not there is refused like a default one
    missing = url.replace("sslcert=desk1.crt", "sslcert=desk9.crt")
    assert refused(missing, cert_dir).code is PgTargetCode.CERT_MISSING


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o660])
def test_a_private_key_open_to_others_is_refused(mode: int, cert_dir: Path) -> None:
    key = cert_dir / "postgresql.key"
    key.chmod(mode)
    url = "postgresql://desk1@db.casino/admission"
    if key.stat().st_uid == 0 and mode == 0o640:
        # libpq's exception: a key owned by root may be read by its group (a service group)
        assert parse_url(url, cert_dir=cert_dir).tls is not None
        return
    error = refused(url, cert_dir)
    assert error.code is PgTargetCode.KEY_EXPOSED
    assert "chmod 600" in str(error)


def test_a_key_owned_by_another_user_follows_the_strict_rule(cert_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give the key to another user")
    key = cert_dir / "postgresql.key"
    key.chmod(0o640)
    os.chown(key, 65534, 65534)  # nobody: group read is allowed to root's keys only
    error = refused("postgresql://desk1@db.casino/admission", cert_dir)
    assert error.code is PgTargetCode.KEY_EXPOSED


def test_extra_tls_options_pass_through(cert_dir: Path) -> None:
    (cert_dir / "casino.crl").write_text("x", encoding="ascii")
    target = parse_url(
        "postgresql://desk1@db.casino/admission?sslcrl=casino.crl"
        "&ssl_min_protocol_version=TLSv1.3&application_name=desk1-admission"
        "&connect_timeout=3&hostaddr=10.0.0.7",
        cert_dir=cert_dir,
    )
    assert target.connect_timeout == 3 and target.hostaddr == "10.0.0.7"
    conninfo = target.conninfo()
    for part in (
        f"sslcrl={cert_dir / 'casino.crl'}",
        "ssl_min_protocol_version=TLSv1.3",
        "application_name=desk1-admission",
        "connect_timeout=3",
        "hostaddr=10.0.0.7",
        "host=db.casino",
    ):
        assert part in conninfo
    assert "connect_timeout=9" in target.conninfo(connect_timeout=9)
    (cert_dir / "casino.crl").unlink()
    error = refused("postgresql://desk1@db.casino/admission?sslcrl=casino.crl", cert_dir)
    assert error.code is PgTargetCode.CERT_MISSING


# -- sockets and descriptions -----------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "postgresql://desk1@%2Fvar%2Frun%2Fpostgresql/admission",
        "postgresql:///admission?host=/var/run/postgresql&user=desk1",
        "postgresql://desk1@%2Fvar%2Frun%2Fpostgresql:5432/admission?sslmode=disable",
    ],
)
def test_a_unix_socket_needs_no_tls_files(url: str, tmp_path: Path) -> None:
    target = parse_url(url, cert_dir=tmp_path / "empty")  # the folder need not exist
    assert target.is_socket and target.tls is None
    assert (target.host, target.port, target.user) == ("/var/run/postgresql", 5432, "desk1")
    assert target.describe() == "/var/run/postgresql:5432/admission"
    assert "ssl" not in target.conninfo()  # libpq never uses TLS on a socket


# -- several hosts: a primary and its standbys --------------------------------------------
def test_several_hosts_over_tcp_share_the_tls_files(cert_dir: Path) -> None:
    url = "postgresql://desk1@db1.casino:5432,db2.casino:5433/admission"
    target = parse_url(f"{url}?target_session_attrs=read-write", cert_dir=cert_dir)
    assert target.hosts == (PgHost("db1.casino", 5432), PgHost("db2.casino", 5433))
    assert (target.host, target.port, target.session) == ("db1.casino", 5432, "read-write")
    assert target.describe() == "db1.casino:5432,db2.casino:5433/admission"
    assert target.tls == TlsFiles(
        cert_dir / "root.crt", cert_dir / "postgresql.crt", cert_dir / "postgresql.key"
    )
    given = conninfo_to_dict(target.conninfo())
    assert (given["host"], given["port"]) == ("db1.casino,db2.casino", "5432,5433")
    assert (given["sslmode"], given["target_session_attrs"]) == ("verify-full", "read-write")
    # without the parameter a desk still asks libpq for a read-write session
    assert parse_url(url, cert_dir=cert_dir) == target
    primary = parse_url(f"{url}?target_session_attrs=primary", cert_dir=cert_dir)
    assert conninfo_to_dict(primary.conninfo())["target_session_attrs"] == "primary"


def test_several_hosts_with_one_port_or_hostaddr_lists(cert_dir: Path) -> None:
    one_port = parse_url(
        "postgresql://desk1@db1.casino,db2.casino/admission?port=6000", cert_dir=cert_dir
    )
    assert [h.port for h in one_port.hosts] == [6000, 6000]
    url = "postgresql://desk1@db1.casino,db2.casino/admission?hostaddr=10.0.0.1,"
    target = parse_url(url, cert_dir=cert_dir)
    assert [h.hostaddr for h in target.hosts] == ["10.0.0.1", None]
    assert conninfo_to_dict(target.conninfo())["hostaddr"] == "10.0.0.1,"


def test_several_unix_sockets_need_no_tls_files(tmp_path: Path) -> None:
    url = (
        "postgresql:///admission?host=/run/pgA,/run/pgB&target_session_attrs=read-write&user=desk1"
    )
    target = parse_url(url, cert_dir=tmp_path / "empty")
    assert target.tls is None and target.is_socket
    assert [h.host for h in target.hosts] == ["/run/pgA", "/run/pgB"]
    assert target.describe() == "/run/pgA:5432,/run/pgB:5432/admission"
    assert "ssl" not in target.conninfo()


@pytest.mark.parametrize("session", ["any", "read-only", "standby", "prefer-standby", "bogus"])
def test_a_session_a_standby_may_serve_is_refused(session: str, cert_dir: Path) -> None:
    # a desk writes the visitor file (art. 20.3): a standby cannot take it, and a desk
    # never reads one that lags behind what it wrote
    for hosts in ("db1.casino", "db1.casino,db2.casino"):
        url = f"postgresql://desk1@{hosts}/admission?target_session_attrs={session}"
        assert refused(url, cert_dir).code is PgTargetCode.STANDBY_SESSION


def test_each_of_several_hosts_is_checked_as_one_is(cert_dir: Path) -> None:
    long_label = "a" * 64
    url = f"postgresql://desk1@db1.casino,{long_label}.casino/admission"
    assert refused(url, cert_dir).code is PgTargetCode.BAD_HOST
    many = ",".join(f"db{n}.casino" for n in range(17))
    assert refused(f"postgresql://desk1@{many}/admission", cert_dir).code is PgTargetCode.BAD_URL


def test_describe_is_log_safe(cert_dir: Path) -> None:
    target = parse_url(
        "postgresql://desk%40casino@db.casino:5433/admission?sslcert=postgresql.crt",
        cert_dir=cert_dir,
    )
    assert target.user == "desk@casino"
    assert target.describe() == "db.casino:5433/admission"
    (cert_dir / "root.crt").rename(cert_dir / "ca.crt")
    v6 = parse_url("postgresql://desk1@[fd00::7]/admission?sslrootcert=ca.crt", cert_dir=cert_dir)
    assert v6.describe() == "[fd00::7]:5432/admission"


def test_the_default_folder_is_in_the_desk_s_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # platformdirs' user data folder
    folder = default_cert_dir()
    assert folder == tmp_path / "admission-desk" / CERT_SUBDIR
    folder.mkdir(parents=True)
    for name in ("root.crt", "postgresql.crt", "postgresql.key"):
        (folder / name).write_text("x", encoding="ascii")
    (folder / "postgresql.key").chmod(0o600)
    target = resolve_target("postgresql://desk1@db.casino/admission", {})
    assert isinstance(target, PgTarget) and target.tls is not None
    assert target.tls.client_key == folder / "postgresql.key"


def test_every_code_has_its_text() -> None:
    for code in PgTargetCode:
        assert catalogue.text(code, "es") != code.value
        assert catalogue.text(code, "en") != code.value


# -- against the real server -------------------------------------------------------------
def desk_url(cluster: Any, desk: str, **query: str) -> str:
    options = "&".join(f"{name}={value}" for name, value in query.items())
    return f"postgresql://{desk}@{cluster.host}:{cluster.port}/{cluster.database}?{options}"


def test_a_resolved_target_connects_over_tls(pg_cluster: Any, tmp_path: Path) -> None:
    folder = tmp_path / CERT_SUBDIR
    folder.mkdir()
    shutil.copy(pg_cluster.ca_cert, folder / "root.crt")
    shutil.copy(pg_cluster.client_cert("desk2"), folder / "postgresql.crt")
    shutil.copy(pg_cluster.client_key("desk2"), folder / "postgresql.key")
    (folder / "postgresql.key").chmod(0o600)
    url = desk_url(pg_cluster, "desk2", hostaddr=pg_cluster.hostaddr)
    target = resolve_target(None, {ENV_VAR: url}, cert_dir=folder)
    assert isinstance(target, PgTarget)
    assert target.describe() == f"localhost:{pg_cluster.port}/{pg_cluster.database}"
    with target.connect() as conn:
        row = conn.execute(
            "SELECT current_user, ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
        ).fetchone()
    assert row == ("desk2", True)
    # the same URL as another role: the server refuses desk2's certificate for it
    borrowed = parse_url(url.replace("desk2@", "desk1@"), cert_dir=folder)
    with pytest.raises(StoreError) as excinfo:
        borrowed.connect().close()
    assert excinfo.value.code is PgConnectCode.CLIENT_CERT_REFUSED


def test_a_resolved_target_connects_through_the_unix_socket(pg_cluster: Any) -> None:
    if not os.access(pg_cluster.socket_dir, os.X_OK):
        pytest.skip("the cluster's socket folder is not reachable by this user")
    socket_dir = quote(str(pg_cluster.socket_dir), safe="")
    url = f"postgresql://admin@{socket_dir}:{pg_cluster.port}/{pg_cluster.database}"
    target = parse_url(url, cert_dir=Path("/nonexistent"))
    assert target.is_socket
    with target.connect() as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("admin",)
        assert conn.info.host == str(pg_cluster.socket_dir)
