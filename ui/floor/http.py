"""The floor service over HTTPS (aiohttp): requests mapped to :class:`FloorService`.

The server runs on a thread of its own with its own event loop; every call into the
visitor file goes to a small thread pool (``run_in_executor``), so a slow disk or a
distant server never stalls the loop. Nothing here decides anything: the rules are
:mod:`ui.floor.service`'s. Every answer carries ``Cache-Control: no-store`` (but the
page's static files) and the page's Content-Security-Policy; a failure inside a
handler is a bare 500 ``INTERNAL``, logged by its exception's type only.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from admission.errors import AdmissionError
from ui.floor.certs import ServerCertificate
from ui.floor.service import FloorService, Principal, Reply, error, unavailable

__all__ = ["PAGE_DIR", "FloorServer", "build_app"]

log = logging.getLogger(__name__)
T = TypeVar("T")

PAGE_DIR = Path(__file__).resolve().parents[2] / "resources" / "floor"
COOKIE = "floor_session"
BODY_LIMIT = 4 * 1024
OFFLINE_LIMIT = 64 * 1024
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob: mediastream:; "
    "style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SERVICE = web.AppKey("service", FloorService)
Run = Callable[..., Awaitable[Any]]
RUN: web.AppKey[Run] = web.AppKey("run")
CA = web.AppKey("ca", bytes)
PAGES = web.AppKey("pages", Path)


def _json(reply: Reply) -> web.Response:
    response = web.json_response(dict(reply.body), status=reply.status, headers=dict(reply.headers))
    if reply.cookie:
        response.set_cookie(
            COOKIE, reply.cookie, httponly=True, secure=True, samesite="Strict", path="/"
        )
    elif reply.cookie == "":
        response.del_cookie(COOKIE, path="/", secure=True, httponly=True, samesite="Strict")
    return response


def _fail(status: int, code: str) -> web.Response:
    return _json(error(status, code))


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Headers on every answer; any failure a bare JSON error, never a traceback."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        codes = {404: "NOT_FOUND", 405: "NOT_FOUND", 413: "TOO_LARGE"}
        response = _fail(
            exc.status if exc.status in codes else 400, codes.get(exc.status, "BAD_REQUEST")
        )
    except AdmissionError as err:
        response = _json(unavailable(err))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        resource = request.match_info.route.resource  # the route, never the code asked
        where = resource.canonical if resource is not None else "-"
        log.error("floor: %s in %s %s", type(exc).__name__, request.method, where)
        response = _fail(500, "INTERNAL")
    static = request.path.startswith("/static/") or request.path == "/sw.js"
    if not static or response.status >= 400:
        response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Strict-Transport-Security"] = "max-age=31536000"
    return response


async def _body(request: web.Request, limit: int) -> object:
    if request.content_length is not None and request.content_length > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=request.content_length)
    data = await request.content.read(limit + 1)
    if len(data) > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=len(data))
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise web.HTTPBadRequest() from exc


def _client(request: web.Request) -> str:
    return request.remote or "-"


async def _who(request: web.Request) -> Principal | None:
    service = request.app[SERVICE]
    cookie = request.cookies.get(COOKIE)
    auth = request.headers.get("Authorization")
    if auth is not None and len(auth) > 512:
        return None
    result: Principal | None = await request.app[RUN](service.principal, cookie, auth)
    return result


async def _signed(request: web.Request) -> Principal | web.Response:
    """The caller (session or token) within its limits, or the refusal to send."""
    service = request.app[SERVICE]
    who = await _who(request)
    limited = service.limited(_client(request), who)
    if limited is not None:
        return _json(limited)
    if who is None:
        return _fail(401, "NOT_SIGNED_IN")
    return who


async def page(request: web.Request) -> web.StreamResponse:
    return _file(request.app[PAGES], "index.html")


async def worker(request: web.Request) -> web.StreamResponse:
    response = _file(request.app[PAGES], "sw.js")
    response.headers["Service-Worker-Allowed"] = "/"
    return response


async def static(request: web.Request) -> web.StreamResponse:
    return _file(request.app[PAGES], request.match_info["path"])


def _file(root: Path, name: str) -> web.StreamResponse:
    """A file of the page's folder, and nothing outside it (no ``..``, no link out)."""
    if not name or "\x00" in name or "\\" in name or len(name) > 200:
        raise web.HTTPNotFound()
    base = root.resolve()
    target = (base / name).resolve()
    if not target.is_relative_to(base) or not target.is_file():
        raise web.HTTPNotFound()
    return web.FileResponse(target)


async def ca(request: web.Request) -> web.StreamResponse:
    return web.Response(body=request.app[CA], content_type="application/x-x509-ca-cert")


async def health(request: web.Request) -> web.StreamResponse:
    return web.json_response({"ok": True})


async def sign_in(request: web.Request) -> web.StreamResponse:
    body = await _body(request, BODY_LIMIT)
    service = request.app[SERVICE]
    return _json(await request.app[RUN](service.sign_in, _client(request), body))


async def sign_out(request: web.Request) -> web.StreamResponse:
    service = request.app[SERVICE]
    return _json(service.sign_out(request.cookies.get(COOKIE)))


async def card(request: web.Request) -> web.StreamResponse:
    who = await _signed(request)
    if isinstance(who, web.Response):
        return who
    service = request.app[SERVICE]
    code, place = request.match_info["code"], request.query.get("place", "")
    return _json(await request.app[RUN](service.check, who, code, place))


async def keys(request: web.Request) -> web.StreamResponse:
    who = await _signed(request)
    if isinstance(who, web.Response):
        return who
    return _json(await request.app[RUN](request.app[SERVICE].card_keys))


async def voids(request: web.Request) -> web.StreamResponse:
    who = await _signed(request)
    if isinstance(who, web.Response):
        return who
    return _json(await request.app[RUN](request.app[SERVICE].voids))


async def offline(request: web.Request) -> web.StreamResponse:
    who = await _signed(request)
    if isinstance(who, web.Response):
        return who
    body = await _body(request, OFFLINE_LIMIT)
    return _json(await request.app[RUN](request.app[SERVICE].offline_checks, who, body))


def build_app(
    service: FloorService,
    ca_pem: bytes,
    run: Callable[..., Awaitable[Any]],
    pages: Path = PAGE_DIR,
) -> web.Application:
    """The routes of the contract (README: the floor service's API)."""
    app = web.Application(middlewares=[_guard], client_max_size=OFFLINE_LIMIT)
    app[SERVICE], app[RUN], app[CA], app[PAGES] = service, run, ca_pem, pages
    app.router.add_get("/", page)
    app.router.add_get("/sw.js", worker)
    app.router.add_get("/static/{path:.+}", static)
    app.router.add_get("/ca.crt", ca)
    app.router.add_get("/api/health", health)
    app.router.add_post("/api/session", sign_in)
    app.router.add_delete("/api/session", sign_out)
    app.router.add_get("/api/cards/{code}", card)
    app.router.add_get("/api/keys", keys)
    app.router.add_get("/api/voids", voids)
    app.router.add_post("/api/offline-checks", offline)
    return app


class FloorServer:
    """The floor service on ``host:port`` over TLS, on its own thread and event loop:
    ``start()`` returns once it listens (``port`` is then the bound port, for port 0);
    ``stop()`` closes it and waits for its thread."""

    def __init__(
        self,
        service: FloorService,
        tls: ServerCertificate,
        host: str = "0.0.0.0",
        port: int = 8443,
        *,
        pages: Path = PAGE_DIR,
        workers: int = 4,
    ) -> None:
        self.service, self.tls, self.host, self.port, self.pages = service, tls, host, port, pages
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="floor-store")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    def _context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.tls.cert, self.tls.key)
        return context

    async def _run_in_pool(self, fn: Callable[..., T], *args: object) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, fn, *args)

    async def _open(self) -> None:
        app = build_app(self.service, self.tls.ca_pem, self._run_in_pool, self.pages)
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, ssl_context=self._context(), backlog=256)
        await site.start()
        self._runner = runner
        if runner.addresses:  # the port bound (port 0: the system's choice)
            self.port = int(runner.addresses[0][1])

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._open())
        except BaseException as exc:
            self._failure = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

    def start(self) -> FloorServer:
        self._thread = threading.Thread(target=self._main, name="floor-server", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            self._pool.shutdown(wait=False)
            raise self._failure
        return self

    @property
    def url(self) -> str:
        host = "localhost" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"https://{host}:{self.port}/"

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
        self._pool.shutdown(wait=True)

    def __enter__(self) -> FloorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
