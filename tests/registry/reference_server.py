"""A reference RGIAJ-style register speaking SOAP over real HTTP(S) on loopback (art. 20.2).

Written independently of the client's message module, from the service description:
``verificarRGIAJ`` (1-100 personas -> COD001/COD002/COD006 per dni) and
``verificarCambiosRGIAJ`` (changes A/B with a date since ``fechaDesde``).

Fault injection: push names on ``faults`` (consumed one per request):
``slow:<seconds>``, ``500``, ``fault`` (SOAP Fault, HTTP 500), ``malformed``,
``drop`` (close the connection without answering), ``extra_person`` (an answer
about someone not asked), ``doctype``.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from xml.sax.saxutils import escape

ENV = "http://schemas.xmlsoap.org/soap/envelope/"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _envelope(body: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="{ENV}" '
        f'xmlns:g="urn:es:rgiaj:verificacion:v1"><s:Body>{body}</s:Body></s:Envelope>'
    ).encode()


class RegisterState:
    def __init__(self, now: Callable[[], datetime]) -> None:
        self.now = now
        self.listed: set[str] = set()
        self.cannot_verify: set[str] = set()
        self.changes: list[tuple[str, str, datetime]] = []
        self.faults: deque[str] = deque()
        self.requests: list[str] = []  # operation names, in order
        self.batch_sizes: list[int] = []
        self.persons: list[dict[str, str]] = []  # every <persona> received, field by field
        self.page_size = 1000
        self.credentials: tuple[str, str] | None = None
        self.lock = threading.Lock()

    def add(self, dni: str, at: datetime | None = None) -> None:
        with self.lock:
            self.listed.add(dni)
            self.changes.append(("A", dni, at or self.now()))

    def remove(self, dni: str, at: datetime | None = None) -> None:
        with self.lock:
            self.listed.discard(dni)
            self.changes.append(("B", dni, at or self.now()))


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: avoid the 40 ms stall

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("Content-Length", "0"))
        payload = self.rfile.read(length)
        with state.lock:
            fault = state.faults.popleft() if state.faults else ""
        if fault.startswith("slow:"):
            time.sleep(float(fault.split(":", 1)[1]))
        if fault == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault == "500":
            return self._send(500, b"<html>Internal Server Error</html>", "text/html")
        if fault == "fault":
            return self._send(
                500,
                _envelope(
                    "<s:Fault><faultcode>s:Server</faultcode><faultstring>busy</faultstring></s:Fault>"
                ),
            )
        if fault == "malformed":
            return self._send(200, b"<s:Envelope><s:Body><unclosed></s:Body>")
        if fault == "doctype":
            return self._send(200, b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')
        root = ET.fromstring(payload)
        if state.credentials is not None and self._credentials(root) != state.credentials:
            return self._send(403, b"forbidden", "text/plain")
        body = next(e for e in root if _local(e.tag) == "Body")
        op = body[0]
        name = _local(op.tag)
        with state.lock:
            state.requests.append(name)
        if name == "verificarRGIAJ":
            return self._send(200, self._verify(op, extra=fault == "extra_person"))
        if name == "verificarCambiosRGIAJ":
            return self._send(200, self._changes(op))
        return self._send(500, _envelope("<s:Fault><faultcode>s:Client</faultcode></s:Fault>"))

    def _credentials(self, root: ET.Element) -> tuple[str, str]:
        user = next((e.text or "" for e in root.iter() if _local(e.tag) == "Username"), "")
        password = next((e.text or "" for e in root.iter() if _local(e.tag) == "Password"), "")
        return user, password

    def _verify(self, op: ET.Element, *, extra: bool) -> bytes:
        state = self.server.state
        dnis = [
            (next(c for c in p if _local(c.tag) == "dni").text or "").strip().upper()
            for p in op
            if _local(p.tag) == "persona"
        ]
        with state.lock:
            state.batch_sizes.append(len(dnis))
            state.persons.extend(
                {_local(c.tag): (c.text or "") for c in p} for p in op if _local(p.tag) == "persona"
            )
            if extra:
                dnis.append("00000001R")
            parts = [f"<g:idTransaccion>TX-{len(state.requests)}</g:idTransaccion>"]
            for dni in dnis:
                code = (
                    "COD006"
                    if dni in state.cannot_verify
                    else "COD001"
                    if dni in state.listed
                    else "COD002"
                )
                parts.append(
                    f"<g:resultado><g:dni>{escape(dni)}</g:dni>"
                    f"<g:codigo>{code}</g:codigo></g:resultado>"
                )
        return _envelope(
            "<g:verificarRGIAJResponse>" + "".join(parts) + "</g:verificarRGIAJResponse>"
        )

    def _changes(self, op: ET.Element) -> bytes:
        state = self.server.state
        since_text = next((c.text or "" for c in op if _local(c.tag) == "fechaDesde"), "")
        since = (
            datetime.fromisoformat(since_text.replace("Z", "+00:00"))
            if since_text.strip()
            else None
        )
        with state.lock:
            now = state.now()
            selected = [c for c in state.changes if since is None or c[2] >= since]
            page = selected[: state.page_size]
            more = len(selected) > len(page)
            until = page[-1][2] if more else now
            parts = [
                f"<g:fechaHasta>{_iso(until)}</g:fechaHasta>",
                f"<g:hayMas>{'true' if more else 'false'}</g:hayMas>",
            ]
            parts += [
                f"<g:cambio><g:dni>{dni}</g:dni><g:tipo>{kind}</g:tipo>"
                f"<g:fecha>{_iso(at)}</g:fecha></g:cambio>"
                for kind, dni, at in page
            ]
        return _envelope(
            "<g:verificarCambiosRGIAJResponse>"
            + "".join(parts)
            + "</g:verificarCambiosRGIAJResponse>"
        )

    def _send(self, status: int, body: bytes, ctype: str = "text/xml; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: RegisterState
    tls: ssl.SSLContext | None = None

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # failed handshakes are what the wrong-certificate tests provoke

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        if self.tls is not None:  # handshake later, in the handler thread
            sock = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr


class ReferenceRegister:
    """Start with ``with ReferenceRegister(...) as reg:``; ``reg.url`` is the endpoint."""

    def __init__(
        self, now: Callable[[], datetime], *, cert: str = "", key: str = "", client_ca: str = ""
    ) -> None:
        self.state = RegisterState(now)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self.state
        if cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            if client_ca:
                ctx.verify_mode = ssl.CERT_REQUIRED
                ctx.load_verify_locations(client_ca)
            self._server.tls = ctx
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        scheme = "https" if cert else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}/rgiaj/verificacion"

    def __enter__(self) -> ReferenceRegister:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
