"""The floor service started over an open visitor file (art. 22.4): by ``floor serve``
and by the desk's window when ``floor.listen`` is set. Both audit the start and the stop
(``FLOOR_SERVICE_STARTED`` / ``FLOOR_SERVICE_STOPPED``, subject ``floor``), so an
inspector sees when the file answered phones on the floor and from where.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from enum import unique
from pathlib import Path
from typing import TYPE_CHECKING

from admission.codes import Code
from ui.context import AppContext

if TYPE_CHECKING:
    from ui.floor.certs import ServerCertificate
    from ui.floor.http import FloorServer

__all__ = [
    "CERT_UNREADABLE",
    "DEFAULT_LISTEN",
    "LISTEN_BAD",
    "LISTEN_FAILED",
    "STARTED",
    "STOPPED",
    "FloorStartCode",
    "FloorStartError",
    "RunningFloor",
    "floor_server",
    "parse_listen",
    "start_floor",
]

DEFAULT_LISTEN = "0.0.0.0:8443"

STARTED = "FLOOR_SERVICE_STARTED"  # audit actions
STOPPED = "FLOOR_SERVICE_STOPPED"


@unique
class FloorStartCode(Code):
    """Why the floor's service did not start."""

    FLOOR_LISTEN_BAD = "FLOOR_LISTEN_BAD"  # not HOST:PORT
    FLOOR_LISTEN_FAILED = "FLOOR_LISTEN_FAILED"  # the address or the port could not be taken
    FLOOR_CERT_UNREADABLE = "FLOOR_CERT_UNREADABLE"  # missing, unreadable or not PEM


LISTEN_BAD = FloorStartCode.FLOOR_LISTEN_BAD
LISTEN_FAILED = FloorStartCode.FLOOR_LISTEN_FAILED
CERT_UNREADABLE = FloorStartCode.FLOOR_CERT_UNREADABLE


class FloorStartError(Exception):
    """The service did not start: ``code`` is one of the codes above, ``detail`` says
    what (an address, an OS error's text; never a path's content)."""

    def __init__(self, code: FloorStartCode, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8443`` for IPv6) -> (host, port); ValueError if not."""
    host, sep, port_text = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError("HOST:PORT")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not all(part.isalnum() or "-" in part for part in host.split(".")):
            raise ValueError("HOST:PORT") from None
    return host, int(port_text)


def floor_server(
    ctx: AppContext, listen: str, cert: str = "", key: str = ""
) -> tuple[FloorServer, ServerCertificate]:
    """The floor's server over the open file, not started. ValueError for a listen text
    that is no ``HOST:PORT``; OSError or ValueError for a certificate that cannot be read."""
    from admission.cards.catalogue import CardCatalogue
    from ui.floor.certs import given_certificate, made_certificate
    from ui.floor.http import FloorServer
    from ui.floor.service import FloorService

    host, port = parse_listen(listen)
    tls = given_certificate(Path(cert), Path(key)) if cert else made_certificate(ctx.data_dir, host)
    settings = ctx.settings
    catalogue = CardCatalogue.from_config(settings["cards.types"], settings["cards.default"])
    service = FloorService(
        ctx.store,  # type: ignore[arg-type]  # both stores have read/write
        ctx.accounts,
        ctx.clock,
        settings["casino.id"],
        card_types={code: (t.label_es, t.label_en) for code, t in catalogue.types.items()},
    )
    return FloorServer(service, tls, host, port), tls


@dataclass(slots=True)
class RunningFloor:
    """A started service: where phones reach it and the CA fingerprint they compare."""

    server: FloorServer
    url: str  # with the machine's host name for a wildcard address
    fingerprint: str  # SHA-256 of the CA certificate phones install (/ca.crt)
    actor: str

    def stop(self, ctx: AppContext) -> None:
        """Stop listening and audit it; a file already closed is not written."""
        self.server.stop()
        ctx.store.append(self.actor, STOPPED, "floor", ctx.clock.now(), {})


def start_floor(
    ctx: AppContext, listen: str, actor: str, cert: str = "", key: str = ""
) -> RunningFloor:
    """Start the service on ``listen`` and audit it; :class:`FloorStartError` if not."""
    if bool(cert) != bool(key):
        raise FloorStartError(CERT_UNREADABLE, "the certificate and its key go together")
    try:
        parse_listen(listen)
    except ValueError:
        raise FloorStartError(LISTEN_BAD, "HOST:PORT, e.g. 0.0.0.0:8443") from None
    try:
        server, tls = floor_server(ctx, listen, cert, key)
    except (OSError, ValueError) as exc:  # a certificate or key missing, or not PEM
        raise FloorStartError(CERT_UNREADABLE, type(exc).__name__) from None
    try:
        server.start()
    except OSError as exc:  # the address is not this machine's, or the port is taken
        raise FloorStartError(LISTEN_FAILED, f"{listen}: {exc.strerror or exc}") from None
    url = server.url.replace("://localhost:", f"://{socket.gethostname()}:")
    details = {"listen": f"{server.host}:{server.port}"}
    try:
        ctx.store.append(actor, STARTED, "floor", ctx.clock.now(), details)
    except BaseException:  # an unaudited service does not answer (art. 22.4)
        server.stop()
        raise
    return RunningFloor(server, url, tls.fingerprint, actor)
