"""Connections of a desk to the PostgreSQL server: TLS with the desk's own client
certificate, the server's verified against the casino's CA and its host name
(``sslmode=verify-full``): the visitor file is confidential (Decreto 58/2006, art. 20.4;
GDPR art. 32). libpq reports a refusal as text without an SQLSTATE: :func:`classify`
matches the messages of libpq and OpenSSL (English) and of the server (English unless its
``lc_messages`` says otherwise: then ``PG_CONNECT_FAILED``)."""

from __future__ import annotations

from enum import unique
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

from admission.codes import Code
from admission.errors import StoreError


@unique
class PgConnectCode(Code):
    """Why a desk could not connect to the visitor file's server."""

    SERVER_CERT_REFUSED = "PG_SERVER_CERT_REFUSED"  # not signed by our CA, or wrong name
    CLIENT_CERT_REFUSED = "PG_CLIENT_CERT_REFUSED"  # none, another CA's, or another role's
    ACCESS_REFUSED = "PG_ACCESS_REFUSED"  # pg_hba.conf has no rule (e.g. without TLS)
    UNREACHABLE = "PG_UNREACHABLE"  # nothing answers at that address and port
    CONNECT_FAILED = "PG_CONNECT_FAILED"  # any other refusal


# (marker in the message, code): the first that occurs wins
_MARKERS: tuple[tuple[str, PgConnectCode], ...] = (
    # the client refuses the server (libpq / OpenSSL)
    ("certificate verify failed", PgConnectCode.SERVER_CERT_REFUSED),
    ("does not match host name", PgConnectCode.SERVER_CERT_REFUSED),
    ("server certificate for", PgConnectCode.SERVER_CERT_REFUSED),
    # the server refuses the client (TLS alerts, then the server's own messages)
    ("alert unknown ca", PgConnectCode.CLIENT_CERT_REFUSED),
    ("alert bad certificate", PgConnectCode.CLIENT_CERT_REFUSED),
    ("alert certificate required", PgConnectCode.CLIENT_CERT_REFUSED),
    ("alert certificate expired", PgConnectCode.CLIENT_CERT_REFUSED),
    ("alert certificate revoked", PgConnectCode.CLIENT_CERT_REFUSED),
    ("requires a valid client certificate", PgConnectCode.CLIENT_CERT_REFUSED),
    ("certificate authentication failed", PgConnectCode.CLIENT_CERT_REFUSED),
    ("no pg_hba.conf entry", PgConnectCode.ACCESS_REFUSED),
    ("connection refused", PgConnectCode.UNREACHABLE),
    ("timeout expired", PgConnectCode.UNREACHABLE),
    ("could not translate host name", PgConnectCode.UNREACHABLE),
    ("network is unreachable", PgConnectCode.UNREACHABLE),
    ("no route to host", PgConnectCode.UNREACHABLE),
)


def classify(error: BaseException | str) -> PgConnectCode:
    """The code of a failed connection (a psycopg ``OperationalError`` or its text)."""
    message = str(error).lower()
    for marker, code in _MARKERS:
        if marker in message:
            return code
    return PgConnectCode.CONNECT_FAILED


def tls_conninfo(
    *,
    host: str,
    port: int,
    dbname: str,
    user: str,
    root_cert: Path,
    client_cert: Path,
    client_key: Path,
    hostaddr: str | None = None,
    connect_timeout: int = 5,
) -> str:
    """A connection string that verifies the server fully and presents the desk's
    certificate (``hostaddr`` skips name resolution; the name checked stays ``host``)."""
    return make_conninfo(
        host=host,
        port=port,
        dbname=dbname,
        user=user,
        sslmode="verify-full",
        sslrootcert=str(root_cert),
        sslcert=str(client_cert),
        sslkey=str(client_key),
        connect_timeout=connect_timeout,
        **({} if hostaddr is None else {"hostaddr": hostaddr}),
    )


def connect(conninfo: str, **kwargs: Any) -> psycopg.Connection[Any]:
    """``psycopg.connect``, a refusal raised as ``StoreError`` with a
    :class:`PgConnectCode` (the libpq text, which names no visitor, kept as detail)."""
    try:
        return psycopg.connect(conninfo, **kwargs)
    except psycopg.OperationalError as exc:
        first_line = next(iter(str(exc).strip().splitlines()), "")
        raise StoreError(first_line[:300], code=classify(exc)) from exc
