"""``floor serve | token add | token list | token revoke``: the floor's card checks (art.
22.4: staff and inspectors check an entry card wherever the visitor is).

* ``floor serve [--listen HOST:PORT] [--cert F --key F]``: serve the phone page and its
  API over HTTPS on the casino's LAN until Ctrl-C or SIGTERM (``--listen`` defaults to
  the ``floor.listen`` setting, else ``0.0.0.0:8443``). Without ``--cert``/``--key``
  (or the ``floor.cert_file``/``floor.key_file`` settings) the desk makes, once, a
  casino CA and a server certificate in its data folder and prints how a phone trusts
  it: the URL, the CA's SHA-256 fingerprint, ``/ca.crt``.
* ``floor token add NAME``: a device token for a fixed scanner or a shared tablet,
  printed once (only its SHA-256 is kept); ``floor token list``; ``floor token revoke
  NAME``. Adding and revoking are audited.

A check made through the service is recorded in the file's audit trail as every other
(``CARD_CHECK``, :mod:`ui.floor.service`).
"""

from __future__ import annotations

import argparse
import ipaddress
import signal
import socket
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from ui.cli.access import actor_for
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

if TYPE_CHECKING:
    from ui.floor.certs import ServerCertificate
    from ui.floor.http import FloorServer
from ui.floor.tokens import MESSAGES, TokenError

DEFAULT_LISTEN = "0.0.0.0:8443"
STARTED = "FLOOR_SERVICE_STARTED"
STOPPED = "FLOOR_SERVICE_STOPPED"
LISTEN_FAILED = "FLOOR_LISTEN_FAILED"  # the address or the port could not be taken
CERT_UNREADABLE = "FLOOR_CERT_UNREADABLE"  # --cert/--key missing, unreadable or not PEM


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="floor_command", required=True)
    serve = sub.add_parser("serve", parents=[common], help="serve the floor's card checks")
    serve.add_argument("--listen", metavar="HOST:PORT", default=None)
    serve.add_argument("--cert", metavar="PEM", default=None, help="the casino CA's certificate")
    serve.add_argument("--key", metavar="PEM", default=None, help="its private key")
    add_user_argument(serve)
    token = sub.add_parser("token", parents=[common], help="device tokens")
    tokens = token.add_subparsers(dest="token_command", required=True)
    add = tokens.add_parser("add", parents=[common], help="a new device token, printed once")
    add.add_argument("name")
    add_user_argument(add)
    listing = tokens.add_parser("list", parents=[common], help="the device tokens' names")
    add_user_argument(listing)
    revoke = tokens.add_parser("revoke", parents=[common], help="revoke a device token")
    revoke.add_argument("name")
    add_user_argument(revoke)


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


def _usage(detail: str) -> CommandResult:
    return error(ExitCode.USAGE, CliError.USAGE, detail)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    if args.floor_command == "serve":
        return serve(args, ctx)
    who = actor_for(args, ctx, "floor token")
    from ui.floor.tokens import DeviceTokens

    tokens = DeviceTokens(ctx.store)  # type: ignore[arg-type]  # both stores have read/write
    try:
        if args.token_command == "add":
            token = tokens.add(args.name, who, ctx.clock.now())
            name = args.name.strip().lower()  # the only time the token is shown
            return ExitCode.OK, {"added": True, "name": name, "token": token, "shown_once": True}
        if args.token_command == "revoke":
            tokens.revoke(args.name, who, ctx.clock.now())
            return ExitCode.OK, {"revoked": True, "name": args.name.strip().lower()}
    except TokenError as err:
        es, en = MESSAGES[err.code]
        return ExitCode.REFUSED, {"error": err.code, "message": es, "message_en": en}
    listed = [
        {"name": t.name, "created_at": t.created_at, "created_by": t.created_by}
        for t in tokens.listed()
    ]
    return ExitCode.OK, {"tokens": listed}


def floor_server(
    ctx: AppContext, listen: str, cert: str = "", key: str = ""
) -> tuple[FloorServer, ServerCertificate]:
    """The floor's server over the open file, not started: the command's, and the
    window's when it runs the service with the desk (``floor.listen`` and the
    certificate settings). ValueError for a listen text that is no ``HOST:PORT``."""
    from ui.floor.certs import given_certificate, made_certificate
    from ui.floor.http import FloorServer
    from ui.floor.service import FloorService

    host, port = parse_listen(listen)
    tls = given_certificate(Path(cert), Path(key)) if cert else made_certificate(ctx.data_dir, host)
    service = FloorService(
        ctx.store,  # type: ignore[arg-type]  # both stores have read/write
        ctx.accounts,
        ctx.clock,
        ctx.settings["casino.id"],
        keys=ctx.floor_keys,
    )
    return FloorServer(service, tls, host, port), tls


def serve(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    """Serve until Ctrl-C or SIGTERM; the start and the stop are audited."""
    who = actor_for(args, ctx, "floor serve")
    settings = ctx.settings
    listen = args.listen or settings["floor.listen"] or DEFAULT_LISTEN
    cert = args.cert or settings["floor.cert_file"]
    key = args.key or settings["floor.key_file"]
    if bool(cert) != bool(key):
        return _usage("--cert and --key go together")
    try:
        parse_listen(listen)
    except ValueError:
        return _usage("--listen HOST:PORT, e.g. 0.0.0.0:8443")
    try:
        server, tls = floor_server(ctx, listen, cert, key)
    except (OSError, ValueError) as exc:  # a certificate or key missing, or not PEM
        return error(ExitCode.REFUSED, CERT_UNREADABLE, type(exc).__name__)
    host = server.host
    try:
        server.start()
    except OSError as exc:  # the address is not this machine's, or the port is taken
        return error(ExitCode.UNAVAILABLE, LISTEN_FAILED, f"{listen}: {exc.strerror or exc}")
    stop = threading.Event()
    url = server.url.replace("://localhost:", f"://{socket.gethostname()}:")
    ctx.store.append(who, STARTED, "floor", ctx.clock.now(), {"listen": f"{host}:{server.port}"})
    print(_banner(url, tls.fingerprint), file=sys.stderr, flush=True)

    def stopping(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, stopping) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop.wait(0.5):
            pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        server.stop()
        ctx.store.append(who, STOPPED, "floor", ctx.clock.now(), {})
    return ExitCode.OK, {"stopped": True, "url": url, "ca_sha256": tls.fingerprint}


def _banner(url: str, fingerprint: str) -> str:
    return "\n".join(
        [
            f"Comprobación de tarjetas en sala / floor card checks: {url}",
            f"CA SHA-256: {fingerprint}",
            f"Para confiar en el certificado, abra {url}ca.crt en el teléfono, compare la "
            "huella SHA-256 con la de arriba e instálelo como certificado de CA.",
            f"To trust the certificate, open {url}ca.crt on the phone, compare its SHA-256 "
            "fingerprint with the one above and install it as a CA certificate.",
            "Ctrl-C para parar / to stop.",
        ]
    )


COMMAND = Command[AppContext]("floor", "the floor's card checks (art. 22.4)", _arguments, run)
