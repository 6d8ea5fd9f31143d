"""A throwaway PostgreSQL cluster with TLS and client certificates, for the tests.

    with PgCluster(Path(tempfile.mkdtemp()), desks=("desk1", "desk2")) as cluster:
        psycopg.connect(cluster.desk_conninfo("desk1"))

Debian's ``postgresql`` package (the newest ``/usr/lib/postgresql/*/bin``): ``initdb``
and ``pg_ctl`` in a folder of the caller's, a test certificate authority, a server
certificate for ``localhost``/``127.0.0.1`` and one client certificate per desk (made with
``cryptography``). The server listens on a free loopback port with ``ssl = on`` and
accepts TCP only as ``hostssl ... cert`` (the certificate's common name is the role);
its Unix socket, in the cluster's own folder, serves the superuser's set-up. ``stop``
(or leaving the ``with``) stops the server and removes the folder.

``initdb`` refuses to run as root: run as root, the server runs as ``postgres`` (the
Debian package creates it) or else ``nobody``, in a sub-folder it owns; run as anyone
else, as that user. The tests are fast, not durable: ``fsync`` is off.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
import pwd
import shutil
import socket
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from psycopg.conninfo import make_conninfo

PG_ROOT = Path("/usr/lib/postgresql")
SUPERUSER = "admin"
DATABASE = "admission"
START_TIMEOUT_S = 30


class ClusterError(RuntimeError):
    """The throwaway cluster could not be set up (the message says which step)."""


def find_bin_dir(root: Path = PG_ROOT) -> Path | None:
    """The newest PostgreSQL's binaries (``initdb`` and ``pg_ctl``), or None."""
    found: list[tuple[int, Path]] = []
    if root.is_dir():
        for child in root.iterdir():
            bin_dir = child / "bin"
            if child.name.isdigit() and (bin_dir / "initdb").exists():
                found.append((int(child.name), bin_dir))
    return max(found)[1] if found else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- certificates ----------------------------------------------------------------------
Key = ec.EllipticCurvePrivateKey


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "admission-desk tests"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def make_ca(common_name: str) -> tuple[Key, x509.Certificate]:
    """A self-signed test certificate authority (ECDSA P-256: instant to generate)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def issue(
    ca_key: Key, ca_cert: x509.Certificate, common_name: str, *, server: bool
) -> tuple[Key, x509.Certificate]:
    """A leaf certificate: a server's (SAN localhost and 127.0.0.1) or a client's (its
    common name is the database role, as ``cert`` authentication requires)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName(common_name),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
    return key, builder.sign(ca_key, hashes.SHA256())


def write_cert(path: Path, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def write_key(path: Path, key: Key) -> None:
    """Owner-only, as libpq and the server require of a private key file."""
    data = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def write_settings(data_dir: Path, settings: Mapping[str, str]) -> None:
    """The server's ``postgresql.auto.conf`` (rewritten in place: its owner is kept)."""
    conf = data_dir / "postgresql.auto.conf"
    conf.write_text(
        "".join(f"{name} = {value}\n" for name, value in settings.items()), encoding="utf-8"
    )


# -- the cluster -----------------------------------------------------------------------
class PgCluster:
    """One throwaway server in ``base`` (created if needed, removed by :meth:`stop`)."""

    def __init__(
        self,
        base: Path,
        *,
        desks: Sequence[str] = ("desk1",),
        bin_dir: Path | None = None,
        database: str = DATABASE,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        found = bin_dir or find_bin_dir()
        if found is None:
            raise ClusterError(f"no PostgreSQL binaries under {PG_ROOT} (package postgresql)")
        self.bin_dir = found
        self.base = base
        self.database = database
        self.desks = tuple(desks)
        self.extra_settings = dict(settings or {})  # over :meth:`server_settings`' own
        self.server_dir = base / "server"  # owned by the server's user, 0700
        self.data_dir = self.server_dir / "data"
        self.socket_dir = self.server_dir / "socket"
        self.client_dir = base / "client"  # the desks' files, owned by the caller
        self.host = "localhost"
        self.hostaddr = "127.0.0.1"
        self.port = 0
        self._account: pwd.struct_passwd | None = None
        self._started = False
        self._ca: tuple[Key, x509.Certificate] | None = None

    # -- paths a test needs ------------------------------------------------------------
    @property
    def ca_cert(self) -> Path:
        return self.client_dir / "ca.crt"

    @property
    def other_ca_cert(self) -> Path:
        """A CA that signed nothing of this cluster: a client trusting it must refuse the
        server (verify-full)."""
        return self.client_dir / "other-ca.crt"

    def client_cert(self, desk: str) -> Path:
        return self.client_dir / f"{desk}.crt"

    def client_key(self, desk: str) -> Path:
        return self.client_dir / f"{desk}.key"

    # -- life cycle ----------------------------------------------------------------------
    def __enter__(self) -> PgCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        self._account = self._server_account()
        # the server's user must reach its sub-folder (but list nothing else)
        self.base.chmod(0o711)
        self.server_dir.mkdir(mode=0o700)
        self.socket_dir.mkdir(mode=0o700)
        self.client_dir.mkdir(mode=0o700)
        self._certificates()
        if self._account is not None:
            for path in [self.server_dir, *self.server_dir.rglob("*")]:
                os.chown(path, self._account.pw_uid, self._account.pw_gid)
        self._run(
            [
                str(self.bin_dir / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                SUPERUSER,
                "--auth-local=trust",
                "--auth-host=reject",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
                "--no-instructions",
            ],
            "initdb",
        )
        (self.data_dir / "pg_hba.conf").write_text(
            "# local socket (0700 folder): the superuser's set-up only\n"
            f"local all {SUPERUSER} trust\n"
            "# streaming replication and base backups (tools/pg_replication.py), same socket\n"
            f"local replication {SUPERUSER} trust\n"
            "# TCP: TLS with a client certificate whose common name is the role\n"
            "hostssl all all 127.0.0.1/32 cert\n",
            encoding="utf-8",
        )
        last_error: ClusterError | None = None
        for _attempt in range(3):  # a free port may be taken before the server binds it
            self.port = free_port()
            self._configure()
            try:
                self._run(
                    [
                        str(self.bin_dir / "pg_ctl"),
                        "-D",
                        str(self.data_dir),
                        "-l",
                        str(self.server_dir / "server.log"),
                        "-w",
                        "-t",
                        str(START_TIMEOUT_S),
                        "start",
                    ],
                    "pg_ctl start",
                )
            except ClusterError as exc:
                last_error = exc
                continue
            self._started = True
            break
        else:
            assert last_error is not None
            raise last_error
        self._set_up_database()

    def stop(self) -> None:
        """Stop the server (immediately: nothing here is kept) and remove the folder."""
        if self._started:
            with contextlib.suppress(ClusterError):
                self._run(
                    [
                        str(self.bin_dir / "pg_ctl"),
                        "-D",
                        str(self.data_dir),
                        "-m",
                        "immediate",
                        "-w",
                        "stop",
                    ],
                    "pg_ctl stop",
                )
            self._started = False
        shutil.rmtree(self.base, ignore_errors=True)

    def server_log(self) -> str:
        path = self.server_dir / "server.log"
        return path.read_text("utf-8", errors="replace") if path.exists() else ""

    # -- connections ---------------------------------------------------------------------
    def superuser_conninfo(self, dbname: str | None = None) -> str:
        """Through the Unix socket in the cluster's folder (trust; only its owner and root
        can reach it)."""
        return make_conninfo(
            host=str(self.socket_dir),
            port=self.port,
            user=SUPERUSER,
            dbname=dbname or self.database,
        )

    def desk_conninfo(
        self,
        desk: str,
        *,
        root_cert: Path | None = None,
        client_cert: bool = True,
        sslmode: str = "verify-full",
    ) -> str:
        """Over TCP with TLS: the server's certificate verified against ``root_cert`` (the
        test CA by default), and the desk's client certificate unless ``client_cert`` is
        False."""
        missing = self.client_dir / "none"  # libpq would otherwise look in ~/.postgresql
        return make_conninfo(
            host=self.host,
            hostaddr=self.hostaddr,
            port=self.port,
            user=desk,
            dbname=self.database,
            sslmode=sslmode,
            sslrootcert=str(root_cert or self.ca_cert),
            sslcert=str(self.client_cert(desk) if client_cert else missing),
            sslkey=str(self.client_key(desk) if client_cert else missing),
            connect_timeout=5,
        )

    def add_desk(self, desk: str) -> None:
        """One more LOGIN role with a client certificate, on the running cluster (tests of
        database roles need logins beyond the desks it started with). Idempotent."""
        import psycopg
        from psycopg import sql

        if self._ca is None or not self._started:
            raise ClusterError("add_desk needs a started cluster")
        if desk not in self.desks:
            key, cert = issue(self._ca[0], self._ca[1], desk, server=False)
            write_cert(self.client_cert(desk), cert)
            write_key(self.client_key(desk), key)
        with psycopg.connect(self.superuser_conninfo(), autocommit=True) as conn:
            role = sql.Identifier(desk)
            if (
                conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (desk,)).fetchone()
                is None
            ):
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(role))
        if desk not in self.desks:
            self.desks = (*self.desks, desk)

    # -- set-up --------------------------------------------------------------------------
    @staticmethod
    def _server_account() -> pwd.struct_passwd | None:
        """The account the server runs as when we are root; None: as ourselves."""
        if os.geteuid() != 0:
            return None
        for name in ("postgres", "nobody"):
            with contextlib.suppress(KeyError):
                return pwd.getpwnam(name)
        raise ClusterError("running as root and neither 'postgres' nor 'nobody' exists")

    def _run(self, cmd: list[str], step: str) -> None:
        kwargs: dict[str, object] = {}
        if self._account is not None:
            kwargs = {
                "user": self._account.pw_uid,
                "group": self._account.pw_gid,
                "extra_groups": [],
            }
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        }
        result = subprocess.run(  # type: ignore[call-overload]
            cmd,
            cwd=self.server_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S + 30,
            check=False,
            **kwargs,
        )
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip()[-2000:]
            log = self.server_log()[-2000:]
            raise ClusterError(f"{step} failed (exit {result.returncode}): {detail}\n{log}")

    def _certificates(self) -> None:
        ca_key, ca = make_ca("admission-desk test CA")
        self._ca = (ca_key, ca)  # kept: add_desk issues more client certificates
        server_key, server = issue(ca_key, ca, self.host, server=True)
        write_cert(self.server_dir / "server.crt", server)
        write_key(self.server_dir / "server.key", server_key)
        write_cert(self.server_dir / "root.crt", ca)  # the CA client certificates must have
        write_cert(self.ca_cert, ca)
        _other_key, other = make_ca("another CA")
        write_cert(self.other_ca_cert, other)
        for desk in self.desks:
            key, cert = issue(ca_key, ca, desk, server=False)
            write_cert(self.client_cert(desk), cert)
            write_key(self.client_key(desk), key)

    def server_settings(self, port: int, socket_dir: Path) -> dict[str, str]:
        """``postgresql.auto.conf`` of a server of this cluster listening on ``port`` and
        ``socket_dir`` (a standby of tools/pg_replication.py has its own)."""
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(port),
            "unix_socket_directories": f"'{socket_dir}'",
            "unix_socket_permissions": "0700",
            "ssl": "on",
            "ssl_cert_file": f"'{self.server_dir / 'server.crt'}'",
            "ssl_key_file": f"'{self.server_dir / 'server.key'}'",
            "ssl_ca_file": f"'{self.server_dir / 'root.crt'}'",
            "ssl_min_protocol_version": "'TLSv1.3'",
            "max_connections": "40",
            "shared_buffers": "16MB",
            # a throwaway cluster: speed over durability
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            # a standby may stream from it (PostgreSQL 15's defaults, said here)
            "wal_level": "replica",
            "max_wal_senders": "10",
        }
        return settings | self.extra_settings

    def _configure(self) -> None:
        write_settings(self.data_dir, self.server_settings(self.port, self.socket_dir))

    def _set_up_database(self) -> None:
        import psycopg

        with psycopg.connect(self.superuser_conninfo("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.database}"')
            for desk in self.desks:
                conn.execute(f'CREATE ROLE "{desk}" LOGIN')
        with psycopg.connect(self.superuser_conninfo(), autocommit=True) as conn:
            conn.execute("REVOKE ALL ON SCHEMA public FROM PUBLIC")
            for desk in self.desks:
                conn.execute(f'GRANT USAGE ON SCHEMA public TO "{desk}"')


__all__ = [
    "DATABASE",
    "SUPERUSER",
    "ClusterError",
    "PgCluster",
    "find_bin_dir",
    "free_port",
    "issue",
    "make_ca",
    "write_cert",
    "write_key",
    "write_settings",
]
