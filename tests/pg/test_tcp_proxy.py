"""The fault-test proxy (tools/tcp_proxy.py): bytes forwarded and counted, connections
reset at once by cut(), accepting paused and resumed, a frozen link that carries nothing;
and a desk's TLS session to the real server through it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import psycopg
import pytest

from db.pg.connect import PgConnectCode, classify
from db.pg.latency import PgLinkCode, classify_failure
from tests.pg.cluster_fixture import load_script


def load_proxy() -> ModuleType:
    return load_script("tcp_proxy")


def through(conninfo: str, port: int, proxy_port: int) -> str:
    """A desk's connection string sent to the proxy instead (the name checked stays
    ``localhost``: the server's certificate is verified through the proxy)."""
    assert f"port={port}" in conninfo
    return conninfo.replace(f"port={port}", f"port={proxy_port}")


class EchoServer:
    """A plain TCP echo server on loopback (one thread per connection)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.resets = 0  # connections that ended with a reset
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    def _echo(self, conn: socket.socket) -> None:
        with conn:
            try:
                while data := conn.recv(65536):
                    conn.sendall(data)
            except ConnectionResetError:
                self.resets += 1

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def echo() -> Iterator[EchoServer]:
    server = EchoServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def proxy_to_echo(echo: EchoServer) -> Iterator[Any]:
    with load_proxy().TcpProxy("127.0.0.1", echo.port) as proxy:
        yield proxy


def dial(proxy: Any, timeout: float = 2.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", proxy.port), timeout=timeout)


def wait_for(predicate: Any, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


# -- with an echo server -----------------------------------------------------------------
def test_bytes_go_both_ways_and_are_counted(proxy_to_echo: Any) -> None:
    payload = bytes(range(256)) * 1000  # 256 kB: several chunks each way
    with dial(proxy_to_echo) as sock:
        sock.sendall(payload)
        received = bytearray()
        while len(received) < len(payload):
            received += sock.recv(65536)
        assert bytes(received) == payload
        wait_for(lambda: proxy_to_echo.bytes_down == len(payload))
        stats = proxy_to_echo.stats()
        assert (stats.accepted, stats.open) == (1, 1)
        assert stats.bytes_up == stats.bytes_down == len(payload)
    wait_for(lambda: proxy_to_echo.open_connections == 0)  # an orderly close passes through


def test_cut_resets_every_open_connection(proxy_to_echo: Any, echo: EchoServer) -> None:
    clients = [dial(proxy_to_echo) for _ in range(3)]
    for sock in clients:
        sock.sendall(b"ping")
        assert sock.recv(16) == b"ping"
    wait_for(lambda: proxy_to_echo.open_connections == 3)
    assert proxy_to_echo.cut() == 3
    assert proxy_to_echo.open_connections == 0
    for sock in clients:
        with sock, pytest.raises(ConnectionResetError):  # RST, not an orderly end (b"")
            sock.recv(16)
    wait_for(lambda: echo.resets == 3)  # the target's side is reset too
    assert proxy_to_echo.stats().resets == 3
    with dial(proxy_to_echo) as sock:  # new connections still work
        sock.sendall(b"again")
        assert sock.recv(16) == b"again"


def test_pause_holds_new_connections_until_resume(proxy_to_echo: Any) -> None:
    proxy_to_echo.pause()
    with dial(proxy_to_echo) as sock:  # the kernel's backlog completes the handshake...
        sock.sendall(b"held")
        sock.settimeout(0.3)
        with pytest.raises(TimeoutError):  # ...but nothing answers
            sock.recv(16)
        assert proxy_to_echo.stats().accepted == 0
        proxy_to_echo.resume()
        sock.settimeout(2.0)
        assert sock.recv(16) == b"held"


def test_pause_with_refuse_closes_the_port_until_resume(proxy_to_echo: Any) -> None:
    port = proxy_to_echo.port
    proxy_to_echo.pause(refuse=True)
    with pytest.raises(ConnectionRefusedError):
        dial(proxy_to_echo).close()
    proxy_to_echo.resume()
    assert proxy_to_echo.port == port
    with dial(proxy_to_echo) as sock:
        sock.sendall(b"back")
        assert sock.recv(16) == b"back"


def test_freeze_carries_nothing_until_thaw(proxy_to_echo: Any) -> None:
    with dial(proxy_to_echo) as sock:
        sock.sendall(b"one")
        assert sock.recv(16) == b"one"
        proxy_to_echo.freeze()
        sock.sendall(b"two")
        sock.settimeout(0.3)
        with pytest.raises(TimeoutError):
            sock.recv(16)
        proxy_to_echo.thaw()
        sock.settimeout(2.0)
        assert sock.recv(16) == b"two"


def test_a_delay_is_added_each_way(proxy_to_echo: Any) -> None:
    proxy_to_echo.delay_s = 0.1
    with dial(proxy_to_echo) as sock:
        start = time.perf_counter()
        sock.sendall(b"slow")
        assert sock.recv(16) == b"slow"
        assert time.perf_counter() - start >= 0.2


def test_the_delay_is_a_latency_not_a_sleep_per_chunk(proxy_to_echo: Any) -> None:
    """Three chunks sent back to back (a pipelining client) arrive one delay late each,
    together: a sleep per chunk would charge the delay three times each way."""
    proxy_to_echo.delay_s = 0.2
    with dial(proxy_to_echo) as sock:
        start = time.perf_counter()
        for part in (b"a", b"b", b"c"):
            sock.sendall(part)
            time.sleep(0.01)
        got = b""
        while len(got) < 3:
            got += sock.recv(16)
        elapsed = time.perf_counter() - start
    assert got == b"abc"
    assert 0.4 <= elapsed < 0.75  # one round trip of latency; sleeps in series: >= 0.8


def test_a_target_that_is_not_there_resets_the_client() -> None:
    port = socket.create_server(("127.0.0.1", 0))
    closed = int(port.getsockname()[1])
    port.close()
    with load_proxy().TcpProxy("127.0.0.1", closed) as proxy:
        # the reset may already meet the client while it connects, or when it writes
        # or reads: any of them is the refusal
        with pytest.raises((ConnectionResetError, BrokenPipeError)), dial(proxy) as sock:
            sock.sendall(b"x")
            sock.recv(16)
        assert proxy.stats().accepted == 0


# -- a desk's TLS session to the real server --------------------------------------------
def test_a_desk_connection_through_the_proxy_is_cut_and_comes_back(pg_cluster: Any) -> None:
    with load_proxy().TcpProxy(pg_cluster.hostaddr, pg_cluster.port) as proxy:
        conninfo = through(pg_cluster.desk_conninfo("desk1"), pg_cluster.port, proxy.port)
        conn = psycopg.connect(conninfo, autocommit=True)
        try:
            row = conn.execute(
                "SELECT current_user, ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
            ).fetchone()
            assert row == ("desk1", True)  # TLS end to end, the desk's certificate checked
            assert proxy.bytes_up > 0 and proxy.bytes_down > 0

            proxy.pause()
            assert proxy.cut() == 1
            with pytest.raises(psycopg.OperationalError) as lost:
                conn.execute("SELECT 1")
            # libpq reports a reset session as a lost connection: connect.classify has no
            # marker for it (it is not a refusal) and falls back; the probe's code says it
            assert classify(lost.value) is PgConnectCode.CONNECT_FAILED
            assert classify_failure(lost.value, established=True) is PgLinkCode.CONNECTION_LOST
        finally:
            conn.close()

        # paused: a new connection waits unanswered until libpq's connect_timeout
        held = conninfo.replace("connect_timeout=5", "connect_timeout=2")
        with pytest.raises(psycopg.OperationalError) as waited:
            psycopg.connect(held).close()
        assert classify(waited.value) is PgConnectCode.UNREACHABLE

        proxy.pause(refuse=True)
        with pytest.raises(psycopg.OperationalError) as refused:
            psycopg.connect(conninfo).close()
        assert classify(refused.value) is PgConnectCode.UNREACHABLE

        proxy.resume()
        with psycopg.connect(conninfo) as again:
            assert again.execute("SELECT current_user").fetchone() == ("desk1",)
