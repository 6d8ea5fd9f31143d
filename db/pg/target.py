"""Which visitor file a desk uses: its SQLCipher file (the default) or a PostgreSQL server
shared by the casino's desks (Decreto 58/2006, arts. 154-155), named by a libpq URL that
libpq's own parser reads. The file is confidential (art. 20.4; GDPR art. 32): over TCP only
``sslmode=verify-full`` with the desk's client certificate; no password in the URL
(STYLE.md rule 16); a refusal never names the URL's user part or a secret.

A URL may list several hosts, as libpq does (PostgreSQL documentation, 34.1.1.3
"Specifying Multiple Hosts"): a primary and its standbys, all over TCP with the same TLS
files or all through Unix sockets. A desk writes, and never to a standby: the session it
asks for (``target_session_attrs``) is ``read-write`` (the default) or ``primary``.
"""

from __future__ import annotations

import ipaddress
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum, unique
from pathlib import Path
from typing import Any, ClassVar

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from admission.codes import Code
from admission.errors import ConfigError
from admission.host_names import host_name_refusal
from db.pg.connect import connect

ENV_VAR = "ADMISSION_DATABASE_URL"
SCHEMES = ("postgresql", "postgres")
DEFAULT_PORT = 5432
DEFAULT_CONNECT_TIMEOUT = 5  # seconds; libpq waits at least 2
MAX_CONNECT_TIMEOUT = 600
CERT_SUBDIR = "postgresql"  # inside the desk's data folder
# The TLS files' parameters, libpq's own default names (~/.postgresql/...), and what they are
_TLS_FILES = (
    ("sslrootcert", "root.crt", "the casino's CA"),
    ("sslcert", "postgresql.crt", "this desk's certificate"),
    ("sslkey", "postgresql.key", "this desk's private key"),
)
_APP_NAME = "admission-desk"  # main.APP_NAME: the data folder's name

# Parameters a desk's URL may carry (anything else is refused: a URL is not a way to
# pass arbitrary libpq options, and some of them hold secrets or weaken TLS).
_PASSED_THROUGH = ("sslcrl", "sslcrldir", "ssl_min_protocol_version", "application_name")
_WHERE = ("host", "hostaddr", "port", "dbname", "user", "connect_timeout")
_SESSION = "target_session_attrs"
_ALLOWED = frozenset(
    {*_WHERE, _SESSION, "sslmode", "sslrootcert", "sslcert", "sslkey", *_PASSED_THROUGH}
)
# the sessions a desk may ask libpq for: a desk writes, and a standby is read-only
WRITABLE_SESSIONS = ("read-write", "primary")
DEFAULT_SESSION = "read-write"
MAX_HOSTS = 16
_SECRETS = frozenset({"password", "sslpassword"})
_PATH_OPTIONS = ("sslcrl", "sslcrldir")  # optional extra files, relative to the folder


@unique
class PgTargetCode(Code):
    """Why the configured database server cannot be used (before any connection)."""

    BAD_URL = "PG_TARGET_BAD_URL"  # not a URL libpq reads, a bad port, uneven host lists...
    BAD_SCHEME = "PG_TARGET_BAD_SCHEME"  # not postgresql:// or postgres://
    PASSWORD_IN_URL = "PG_TARGET_PASSWORD_IN_URL"  # secrets never sit in settings
    PARAMETER_REFUSED = "PG_TARGET_PARAMETER_REFUSED"  # an option the desk does not accept
    INCOMPLETE = "PG_TARGET_INCOMPLETE"  # no host, database or role named
    TLS_TOO_WEAK = "PG_TARGET_TLS_TOO_WEAK"  # sslmode other than verify-full over TCP
    CERT_MISSING = "PG_TARGET_CERT_MISSING"  # a CA, certificate or key file is not there
    KEY_EXPOSED = "PG_TARGET_KEY_EXPOSED"  # the private key is readable by others
    BAD_HOST = "PG_TARGET_BAD_HOST"  # an empty or over-long label, a name over 253 bytes
    STANDBY_SESSION = "PG_TARGET_STANDBY_SESSION"  # target_session_attrs a standby may meet


class TargetError(ConfigError):
    """The database target is refused; ``code`` is a :class:`PgTargetCode`."""


class TargetSource(StrEnum):
    """Where the target came from (said in the log at start-up)."""

    ENVIRONMENT = "environment"  # ADMISSION_DATABASE_URL
    SETTINGS = "settings"  # database.url
    DEFAULT = "default"  # neither: the SQLCipher file


@dataclass(frozen=True, slots=True)
class SqlCipherTarget:
    """The desk's own encrypted file in its data folder (the embedded default)."""

    kind: ClassVar[str] = "sqlcipher"
    source: TargetSource = TargetSource.DEFAULT

    def describe(self) -> str:
        return "SQLCipher"


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The casino's CA, the desk's certificate and its private key (absolute paths)."""

    root_cert: Path
    client_cert: Path
    client_key: Path


@dataclass(frozen=True, slots=True)
class PgHost:
    """One server of the URL: a host name or address, or a Unix-socket folder."""

    host: str  # a Unix-socket folder starts with "/" or "@"
    port: int
    hostaddr: str | None = None  # an IP address: no name look-up; the name checked is host

    @property
    def is_socket(self) -> bool:
        return _is_socket(self.host)

    def describe(self) -> str:
        """``host:port``: log-safe, for the status bar."""
        host = f"[{self.host}]" if ":" in self.host and not self.is_socket else self.host
        return f"{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class PgTarget:
    """A PostgreSQL server, or a primary and its standbys, validated: over TCP always with
    :attr:`tls` (verify-full, the same files for every host)."""

    kind: ClassVar[str] = "postgresql"
    hosts: tuple[PgHost, ...]  # in the URL's order, at least one
    dbname: str
    user: str
    source: TargetSource
    tls: TlsFiles | None  # None exactly over Unix sockets
    connect_timeout: int = DEFAULT_CONNECT_TIMEOUT
    options: tuple[tuple[str, str], ...] = ()  # sslcrl, application_name... as given
    session: str = DEFAULT_SESSION  # target_session_attrs: read-write or primary

    @property
    def host(self) -> str:
        """The first host (a single-server URL's only one)."""
        return self.hosts[0].host

    @property
    def port(self) -> int:
        return self.hosts[0].port

    @property
    def hostaddr(self) -> str | None:
        return self.hosts[0].hostaddr

    @property
    def is_socket(self) -> bool:
        return self.hosts[0].is_socket

    def conninfo(self, *, connect_timeout: int | None = None) -> str:
        """The libpq connection string, every host in it (no TLS over a socket: libpq never
        uses it there); libpq itself skips a standby (``target_session_attrs``)."""
        timeout = self.connect_timeout if connect_timeout is None else connect_timeout
        where: dict[str, Any] = {
            "host": ",".join(h.host for h in self.hosts),
            "port": ",".join(str(h.port) for h in self.hosts),
            "user": self.user,
            "dbname": self.dbname,
            "connect_timeout": timeout,
        }
        if any(h.hostaddr for h in self.hosts):
            where["hostaddr"] = ",".join(h.hostaddr or "" for h in self.hosts)
        if self.tls is not None:  # the keywords are TlsFiles' fields
            where |= {"sslmode": "verify-full"}
            where |= {name: str(path) for name, path in _tls_parameters(self.tls)}
        if len(self.hosts) > 1 or self.session != DEFAULT_SESSION:
            where[_SESSION] = self.session
        return make_conninfo(**where, **dict(self.options))

    def connect(self, **kwargs: Any) -> psycopg.Connection[Any]:
        """A connection; a refusal is a ``StoreError`` with a ``PgConnectCode``."""
        return connect(self.conninfo(), **kwargs)

    def describe(self) -> str:
        """``host:port/db`` (``db1:5432,db2:5432/db``): log-safe (no role, no file, no
        secret), for the status bar."""
        return ",".join(h.describe() for h in self.hosts) + f"/{self.dbname}"


def _tls_parameters(tls: TlsFiles) -> list[tuple[str, Path]]:
    return [
        ("sslrootcert", tls.root_cert),
        ("sslcert", tls.client_cert),
        ("sslkey", tls.client_key),
    ]


def default_cert_dir() -> Path:
    """The certificate folder in the desk's default data folder (main passes its own)."""
    from platformdirs import user_data_path

    return user_data_path(_APP_NAME, appauthor=False) / CERT_SUBDIR


def resolve_target(
    settings_url: str | None, environ: Mapping[str, str], *, cert_dir: Path | None = None
) -> SqlCipherTarget | PgTarget:
    """``ADMISSION_DATABASE_URL``, else the ``database.url`` setting, else the SQLCipher
    file. A URL refused never falls back to the file (a desk configured for the shared
    file must not start a file of its own, art. 20.4)."""
    for url, source in (
        (environ.get(ENV_VAR, ""), TargetSource.ENVIRONMENT),
        (settings_url or "", TargetSource.SETTINGS),
    ):
        if url.strip():
            return parse_url(url.strip(), source=source, cert_dir=cert_dir)
    return SqlCipherTarget()


def parse_url(
    url: str, *, source: TargetSource = TargetSource.SETTINGS, cert_dir: Path | None = None
) -> PgTarget:
    """Validate a server URL (see the module's docstring) into a :class:`PgTarget`; a
    refusal names the setting to fix."""
    try:
        return _parse(url, source, cert_dir)
    except TargetError as exc:
        where = ENV_VAR if source is TargetSource.ENVIRONMENT else "database.url"
        raise TargetError(f"{where}: {exc}", code=exc.code) from None


def _parse(url: str, source: TargetSource, cert_dir: Path | None) -> PgTarget:
    # the checks that must come before libpq reads the URL: its own error messages quote
    # the text they fail on, and that text may hold a password
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in SCHEMES:  # libpq knows them in lower case only
        raise TargetError("not a postgresql:// URL", code=PgTargetCode.BAD_SCHEME)
    authority = rest.split("/", 1)[0].split("?", 1)[0]
    userinfo, at, _hostport = authority.rpartition("@")
    if at and ":" in userinfo:
        raise TargetError("a password in the URL", code=PgTargetCode.PASSWORD_IN_URL)
    try:
        raw = conninfo_to_dict(url)
    except psycopg.Error:
        # libpq's message quotes the URL: only its kind is kept
        raise TargetError("libpq cannot read the URL", code=PgTargetCode.BAD_URL) from None
    params = {name: str(value) for name, value in raw.items()}
    if _SECRETS & params.keys():
        raise TargetError("a password parameter in the URL", code=PgTargetCode.PASSWORD_IN_URL)
    refused = ", ".join(sorted(params.keys() - _ALLOWED))
    if refused:
        raise TargetError(
            f"parameters not accepted: {refused}", code=PgTargetCode.PARAMETER_REFUSED
        )
    if not params.get("host", "").strip(","):
        raise TargetError("the URL names no host or socket folder", code=PgTargetCode.INCOMPLETE)
    for name in ("dbname", "user"):
        if not params.get(name):
            raise TargetError(f"the URL names no {name}", code=PgTargetCode.INCOMPLETE)
    hosts = _hosts(params)
    session = params.get(_SESSION) or DEFAULT_SESSION
    if session not in WRITABLE_SESSIONS:
        detail = f"{_SESSION}={session}: a desk writes, and never to a standby"
        raise TargetError(detail[:120], code=PgTargetCode.STANDBY_SESSION)
    timeout = _whole(params, "connect_timeout", DEFAULT_CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT)
    sockets = {host.is_socket for host in hosts}
    if len(sockets) > 1:
        raise TargetError("hosts mix Unix sockets and TCP", code=PgTargetCode.BAD_URL)
    folder = (cert_dir if cert_dir is not None else default_cert_dir()).expanduser()
    tls = None if sockets == {True} else _tls_files(params, folder)
    options = tuple(
        (name, str(_in_folder(params[name], folder)) if name in _PATH_OPTIONS else params[name])
        for name in _PASSED_THROUGH
        if params.get(name)
    )
    for name, value in options:
        if name in _PATH_OPTIONS and not os.path.exists(value):
            raise TargetError(f"{name} file {value} not found", code=PgTargetCode.CERT_MISSING)
    return PgTarget(hosts, params["dbname"], params["user"], source, tls, timeout, options, session)


def _hosts(params: Mapping[str, str]) -> tuple[PgHost, ...]:
    """libpq's lists (host, port, hostaddr: one port for all or one per host, one hostaddr
    per host, an empty one for none), each host checked as a single one is."""
    names = params["host"].split(",")
    if len(names) > MAX_HOSTS:
        raise TargetError(f"more than {MAX_HOSTS} hosts", code=PgTargetCode.BAD_URL)
    ports = params.get("port", "").split(",")
    if len(ports) == 1:
        ports *= len(names)
    addresses = params.get("hostaddr", "").split(",")
    if len(addresses) == 1 and len(names) > 1 and not addresses[0]:
        addresses *= len(names)
    if len(ports) != len(names) or len(addresses) != len(names):
        detail = "host, port and hostaddr lists of different lengths"
        raise TargetError(detail, code=PgTargetCode.BAD_URL)
    return tuple(
        _host(name, _whole({"port": port}, "port", DEFAULT_PORT, 65535), address or None)
        for name, port, address in zip(names, ports, addresses, strict=True)
    )


def _host(host: str, port: int, hostaddr: str | None) -> PgHost:
    if not host:
        raise TargetError("an empty host in the list", code=PgTargetCode.BAD_URL)
    socket = _is_socket(host)
    # a DNS name the resolver would refuse with a traceback (admission.host_names)
    refusal = None if socket else host_name_refusal(host)
    if refusal is not None:
        raise TargetError(refusal, code=PgTargetCode.BAD_HOST)
    if hostaddr is not None:
        if socket:
            raise TargetError("hostaddr with a Unix socket", code=PgTargetCode.BAD_URL)
        try:
            ipaddress.ip_address(hostaddr)
        except ValueError:
            raise TargetError("hostaddr is not an IP address", code=PgTargetCode.BAD_URL) from None
    return PgHost(host, port, hostaddr)


def _whole(params: Mapping[str, str], name: str, default: int, high: int) -> int:
    text = params.get(name) or str(default)
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= high:
        raise TargetError(f"{name} must be a whole number 1-{high}", code=PgTargetCode.BAD_URL)
    return int(text)


def _is_socket(host: str) -> bool:
    """libpq's rule: a host starting with "/" is a socket folder, "@" an abstract one."""
    return host.startswith(("/", "@"))


def _in_folder(value: str, folder: Path) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else folder / path


def _tls_files(params: Mapping[str, str], folder: Path) -> TlsFiles:
    """Over TCP: verify-full (the only mode; the default), the three files present and the
    key's mode by libpq's own rule (PostgreSQL documentation, "Client Certificates"),
    told before libpq refuses with a bare message."""
    mode = params.get("sslmode") or "verify-full"
    if mode != "verify-full":
        detail = f"sslmode={mode} over TCP; only verify-full authenticates the server"
        raise TargetError(detail, code=PgTargetCode.TLS_TOO_WEAK)
    paths = [_in_folder(params.get(name) or default, folder) for name, default, _ in _TLS_FILES]
    for (name, _, what), path in zip(_TLS_FILES, paths, strict=True):
        if not path.is_file() or not os.access(path, os.R_OK):
            detail = f"{name} ({what}): {path} not readable"
            raise TargetError(detail, code=PgTargetCode.CERT_MISSING)
    info = paths[2].stat()
    group_read = stat.S_IRGRP if info.st_uid == 0 else 0  # a root-owned key may be 0640
    exposed = info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) & ~group_read
    if exposed:
        mode = f"{stat.S_IMODE(info.st_mode):o}"
        detail = f"sslkey {paths[2]} is open to others (mode {mode}; chmod 600)"
        raise TargetError(detail, code=PgTargetCode.KEY_EXPOSED)
    return TlsFiles(*paths)
