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
import signal
import sys
import threading
from types import FrameType

from ui.cli.access import actor_for
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext
from ui.demo_accounts import ensure_demo_accounts
from ui.floor.start import (
    DEFAULT_LISTEN,
    LISTEN_BAD,
    LISTEN_FAILED,
    FloorStartError,
    start_floor,
)
from ui.floor.tokens import MESSAGES, TokenError


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


def serve(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    """Serve until Ctrl-C or SIGTERM; the start and the stop are audited."""
    who = actor_for(args, ctx, "floor serve")
    settings = ctx.settings
    listen = args.listen or settings["floor.listen"] or DEFAULT_LISTEN
    cert = args.cert or settings["floor.cert_file"]
    key = args.key or settings["floor.key_file"]
    if bool(cert) != bool(key):
        return _usage("--cert and --key go together")
    if ctx.demo:  # someone to sign in on the phone: ui/demo_accounts.DEMO_FLOOR
        ensure_demo_accounts(ctx.accounts)
    try:
        running = start_floor(ctx, listen, who, cert, key)
    except FloorStartError as exc:
        if exc.code == LISTEN_BAD:
            return _usage("--listen HOST:PORT, e.g. 0.0.0.0:8443")
        exit_code = ExitCode.UNAVAILABLE if exc.code == LISTEN_FAILED else ExitCode.REFUSED
        return error(exit_code, exc.code, exc.detail)
    stop = threading.Event()

    def stopping(signum: int, frame: FrameType | None) -> None:
        stop.set()

    # the handlers first, the banner after: whoever reads it may stop the service at once
    previous = {s: signal.signal(s, stopping) for s in (signal.SIGINT, signal.SIGTERM)}
    print(_banner(running.url, running.fingerprint), file=sys.stderr, flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        running.stop(ctx)
    return ExitCode.OK, {"stopped": True, "url": running.url, "ca_sha256": running.fingerprint}


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
