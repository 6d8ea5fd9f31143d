"""A loopback TCP proxy for fault tests: the network between a desk and its server,
made to fail on purpose (standard library only).

    with TcpProxy("127.0.0.1", server_port) as proxy:
        conn = psycopg.connect(conninfo_with(port=proxy.port))  # TLS passes through
        proxy.cut()        # every open connection reset (RST), as a pulled cable
        proxy.pause()      # new connections wait unanswered in the backlog ...
        proxy.pause(refuse=True)  # ... or are refused (nothing listens)
        proxy.resume()
        proxy.freeze()     # open connections stay open but carry nothing
        proxy.thaw()
        proxy.delay_s = 0.05  # each chunk arrives 50 ms late (one way): a latency

Bytes are forwarded unchanged (a TLS session runs end to end through it), counted in
each direction. Two threads per connection move the bytes; every blocking call wakes at
least every :data:`POLL_S` to notice a cut, a freeze or the end, and only those threads
close their sockets, so a descriptor is never closed under another thread's call.

``cut`` sets ``SO_LINGER`` to on with a zero timeout before closing: the kernel then
sends a TCP reset instead of the orderly FIN (RFC 793 section 3.5 / RFC 9293 section
3.6, abort), the way a peer that crashed, or a firewall that dropped the session, looks.

Run alone, it forwards until interrupted: ``python tools/tcp_proxy.py HOST PORT``.
"""

from __future__ import annotations

import argparse
import contextlib
import select
import socket
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from types import TracebackType

__all__ = ["POLL_S", "ProxyStats", "TcpProxy"]

POLL_S = 0.05  # how often a blocked thread looks at the proxy's state
CHUNK = 65536
_LINGER_RESET = struct.pack("ii", 1, 0)  # struct linger {l_onoff = 1, l_linger = 0}


@dataclass(frozen=True, slots=True)
class ProxyStats:
    accepted: int  # connections accepted since start
    open: int  # connections open now
    bytes_up: int  # client -> target
    bytes_down: int  # target -> client
    resets: int  # connections reset by cut()
    # client chunks that came after an answer (or opened a connection): with a delay
    # longer than the client takes to send what it sends at once, the round trips it
    # waited for
    turns: int = 0


@dataclass(eq=False)
class _Link:
    """One client connection and its connection to the target."""

    client: socket.socket
    upstream: socket.socket
    aborting: bool = False
    pumps: list[threading.Thread] = field(default_factory=list)
    finished: int = 0  # pumps that ended (the last one closes both sockets)
    last_up: bool | None = None  # the direction of the last chunk that arrived


class TcpProxy:
    """Listens on ``listen_host`` (an ephemeral port: :attr:`port`) and forwards every
    connection to ``target_host:target_port``."""

    def __init__(
        self,
        target_host: str,
        target_port: int,
        *,
        listen_host: str = "127.0.0.1",
        delay_s: float = 0.0,
        connect_timeout_s: float = 5.0,
    ) -> None:
        self.target = (target_host, target_port)
        self.listen_host = listen_host
        self.port = 0
        self.delay_s = delay_s
        self.connect_timeout_s = connect_timeout_s
        self._lock = threading.Condition()
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self._links: set[_Link] = set()
        self._stopping = False
        self._paused = False
        self._acceptor_idle = threading.Event()
        self._frozen = False
        self._accepted = 0
        self._bytes_up = 0
        self._bytes_down = 0
        self._resets = 0
        self._turns = 0

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> TcpProxy:
        if self._acceptor is not None:
            raise RuntimeError("the proxy is already started")
        self._listener = self._listen(0)
        self.port = int(self._listener.getsockname()[1])
        self._acceptor = threading.Thread(target=self._accept_loop, name="tcp-proxy", daemon=True)
        self._acceptor.start()
        return self

    def stop(self) -> None:
        """Stop listening and reset every open connection."""
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
        if self._acceptor is not None:
            self._acceptor.join()
        self.cut()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def address(self) -> tuple[str, int]:
        return (self.listen_host, self.port)

    # -- faults --------------------------------------------------------------------------
    def cut(self) -> int:
        """Reset every open connection, both sides, at once (RST, not FIN); returns how
        many. When it returns the resets are sent. New connections are still accepted
        unless the proxy is paused."""
        with self._lock:
            links = list(self._links)
            for link in links:
                link.aborting = True
            self._lock.notify_all()
        for link in links:
            for pump in link.pumps:
                pump.join()
        with self._lock:
            self._resets += len(links)
        return len(links)

    def pause(self, *, refuse: bool = False) -> None:
        """Accept nothing: new connections wait in the listen backlog (a server that hangs
        at connect), or with ``refuse`` the port is closed (connection refused)."""
        with self._lock:
            self._paused = True
            self._acceptor_idle.clear()
            self._lock.notify_all()
        if not self._acceptor_idle.wait(5.0):
            raise RuntimeError("the proxy's acceptor did not pause")
        if refuse and self._listener is not None:
            self._listener.close()  # the acceptor is idle: nobody else uses it
            self._listener = None

    def resume(self) -> None:
        """Accept again (listening again on the same port if ``pause(refuse=True)``);
        connections held in the backlog are forwarded now."""
        if self._listener is None:
            self._listener = self._listen(self.port)
        with self._lock:
            self._paused = False
            self._lock.notify_all()

    def freeze(self) -> None:
        """Open connections stay open but carry nothing either way (a network that went
        silent: only a timeout on the client tells)."""
        with self._lock:
            self._frozen = True

    def thaw(self) -> None:
        with self._lock:
            self._frozen = False
            self._lock.notify_all()

    # -- counters ------------------------------------------------------------------------
    def stats(self) -> ProxyStats:
        with self._lock:
            return ProxyStats(
                self._accepted,
                len(self._links),
                self._bytes_up,
                self._bytes_down,
                self._resets,
                self._turns,
            )

    @property
    def bytes_up(self) -> int:
        return self.stats().bytes_up

    @property
    def bytes_down(self) -> int:
        return self.stats().bytes_down

    @property
    def turns(self) -> int:
        return self.stats().turns

    @property
    def open_connections(self) -> int:
        return self.stats().open

    # -- inside --------------------------------------------------------------------------
    def _listen(self, port: int) -> socket.socket:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.listen_host, port))
        listener.listen(64)
        return listener

    def _accept_loop(self) -> None:
        while True:
            with self._lock:
                if self._stopping:
                    self._acceptor_idle.set()
                    return
                if self._paused:
                    self._acceptor_idle.set()
                    self._lock.wait(POLL_S)
                    continue
                listener = self._listener
            if listener is None:
                time.sleep(POLL_S)
                continue
            ready, _, _ = select.select([listener], [], [], POLL_S)
            if not ready:
                continue
            try:
                client, _address = listener.accept()
            except OSError:
                continue
            self._open_link(client)

    def _open_link(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.target, timeout=self.connect_timeout_s)
        except OSError:
            _reset(client)  # the target is not there: the client sees a reset
            return
        for sock in (client, upstream):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(POLL_S)
        link = _Link(client, upstream)
        link.pumps = [
            threading.Thread(target=self._pump, args=(link, client, upstream, True), daemon=True),
            threading.Thread(target=self._pump, args=(link, upstream, client, False), daemon=True),
        ]
        with self._lock:
            self._accepted += 1
            self._links.add(link)
        for pump in link.pumps:
            pump.start()

    def _held(self, link: _Link) -> bool:
        """Wait while frozen; True when the link is being cut."""
        with self._lock:
            while self._frozen and not link.aborting:
                self._lock.wait(POLL_S)
            return link.aborting

    def _pump(self, link: _Link, src: socket.socket, dst: socket.socket, up: bool) -> None:
        """Read ``src`` and hand each chunk, stamped with when it is due, to a deliverer:
        the delay is a latency (every chunk ``delay_s`` late), not a queue of sleeps,
        so a client that pipelines is not charged the delay once per chunk."""
        queue: deque[tuple[float, bytes]] = deque()
        wake = threading.Condition()
        ended: list[bool] = []  # [orderly] once src is done
        deliverer = threading.Thread(
            target=self._deliver, args=(link, dst, up, queue, wake, ended), daemon=True
        )
        deliverer.start()
        orderly = False
        try:
            while not self._held(link):
                try:
                    data = src.recv(CHUNK)
                except TimeoutError:
                    continue
                if not data:  # orderly end from src: passed on once delivered
                    orderly = True
                    return
                with self._lock:
                    if up and link.last_up is not True:
                        self._turns += 1
                    link.last_up = up
                with wake:
                    queue.append((time.monotonic() + self.delay_s, data))
                    wake.notify()
        except OSError:
            with self._lock:
                link.aborting = True  # one side failed: the other side is reset too
        finally:
            with wake:
                ended.append(orderly)
                wake.notify()
            deliverer.join()
            self._pump_finished(link)

    def _deliver(
        self,
        link: _Link,
        dst: socket.socket,
        up: bool,
        queue: deque[tuple[float, bytes]],
        wake: threading.Condition,
        ended: list[bool],
    ) -> None:
        """Send each chunk when it is due, in order; after the last, pass a half-close on."""
        try:
            while True:
                with wake:
                    while not queue and not ended and not link.aborting:
                        wake.wait(POLL_S)
                    if link.aborting:
                        return
                    if not queue:
                        if ended[0]:
                            with contextlib.suppress(OSError):
                                dst.shutdown(socket.SHUT_WR)
                        return
                    due, data = queue.popleft()
                if self._held(link) or not self._wait(link, due - time.monotonic()):
                    return
                if not self._send(link, dst, data):
                    return
                with self._lock:
                    if up:
                        self._bytes_up += len(data)
                    else:
                        self._bytes_down += len(data)
        except OSError:
            with self._lock:
                link.aborting = True

    def _wait(self, link: _Link, seconds: float) -> bool:
        """Sleep ``seconds`` unless the link is cut meanwhile (then False)."""
        deadline = time.monotonic() + seconds
        with self._lock:
            while not link.aborting:
                left = deadline - time.monotonic()
                if left <= 0:
                    return True
                self._lock.wait(min(left, POLL_S))
            return False

    @staticmethod
    def _send(link: _Link, dst: socket.socket, data: bytes) -> bool:
        view = memoryview(data)
        while view:
            if link.aborting:
                return False
            try:
                sent = dst.send(view)
            except TimeoutError:
                continue
            view = view[sent:]
        return True

    def _pump_finished(self, link: _Link) -> None:
        with self._lock:
            link.finished += 1
            last = link.finished == len(link.pumps)
            if last:
                self._links.discard(link)
            abort = link.aborting
        if not last:
            return
        # both pumps ended: nobody else touches these sockets any more
        for sock in (link.client, link.upstream):
            if abort:
                _reset(sock)
            else:
                with contextlib.suppress(OSError):
                    sock.close()


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER on, zero timeout)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_RESET)
    with contextlib.suppress(OSError):
        sock.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Forward a loopback port to HOST:PORT.")
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="one-way delay per chunk")
    args = parser.parse_args(argv)
    with TcpProxy(args.host, args.port, delay_s=args.delay_ms / 1000.0) as proxy:
        print(f"listening on {proxy.listen_host}:{proxy.port}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(1.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
