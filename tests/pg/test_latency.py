"""The status bar's latency probe (db/pg/latency.py) on the real server: a timed SELECT 1
on a kept connection, its rolling median, and every failure a code within the timeout -
a closed port, a refused certificate, a silent network, a cut one."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from admission import catalogue
from admission.errors import StoreError
from db.pg.connect import PgConnectCode, connect
from db.pg.latency import LatencyProbe, PgLinkCode, ProbeResult, classify_failure
from tests.pg.conftest import load_tool
from tests.pg.test_tcp_proxy import load_proxy, through

Factory = Callable[[], psycopg.Connection[Any]]


def factory(conninfo: str, **kwargs: Any) -> Factory:
    return lambda: psycopg.connect(conninfo, **kwargs)


@pytest.fixture
def proxy(pg_cluster: Any) -> Iterator[Any]:
    with load_proxy().TcpProxy(pg_cluster.hostaddr, pg_cluster.port) as running:
        yield running


@pytest.fixture
def via_proxy(pg_cluster: Any, proxy: Any) -> str:
    return through(pg_cluster.desk_conninfo("desk1"), pg_cluster.port, proxy.port)


def timed(probe: LatencyProbe) -> tuple[ProbeResult, float]:
    start = time.monotonic()
    result = probe.probe()
    return result, time.monotonic() - start


# -- the server answers --------------------------------------------------------------------
def test_round_trips_are_timed_on_one_kept_connection(pg_cluster: Any) -> None:
    opened: list[psycopg.Connection[Any]] = []

    def counting() -> psycopg.Connection[Any]:
        conn = psycopg.connect(pg_cluster.desk_conninfo("desk1"))  # not autocommit
        opened.append(conn)
        return conn

    with LatencyProbe(counting, timeout_s=5.0, window=5) as probe:
        assert probe.summary().last is None and probe.p50_ms() is None
        results = [probe.probe() for _ in range(7)]
        assert all(r.ok and r.code is None for r in results)
        assert [r.connected for r in results] == [True] + [False] * 6
        assert len(opened) == 1
        # no transaction is left open between probes
        assert opened[0].info.transaction_status is psycopg.pq.TransactionStatus.IDLE
        times = [r.ms for r in results]
        assert all(t is not None and 0 < t < 1000 for t in times)
        summary = probe.summary()
        assert summary.reachable and summary.last == results[-1]
        assert summary.samples == 5  # the window
        recent = sorted(t for t in times[-5:] if t is not None)
        assert summary.p50_ms == recent[2] == probe.p50_ms()
    assert opened[0].closed  # close() closes the kept connection


def test_the_median_follows_the_last_probes(via_proxy: str, proxy: Any) -> None:
    with LatencyProbe(factory(via_proxy), timeout_s=5.0, window=3) as probe:
        for _ in range(3):
            assert probe.probe().ok
        fast = probe.p50_ms()
        assert fast is not None and fast < 50
        proxy.delay_s = 0.03  # each way: a round trip at least 60 ms slower
        slow = [probe.probe() for _ in range(2)]
        assert all(r.ok and r.ms is not None and r.ms >= 60 for r in slow)
        p50 = probe.p50_ms()
        assert p50 is not None and p50 >= 60  # 2 slow of the last 3


# -- the server does not answer ------------------------------------------------------------
def test_a_closed_port_is_unreachable_at_once(pg_cluster: Any) -> None:
    nobody = pg_cluster.desk_conninfo("desk1").replace(
        f"port={pg_cluster.port}", f"port={load_tool().free_port()}"
    )
    with LatencyProbe(factory(nobody), timeout_s=5.0) as probe:
        result, elapsed = timed(probe)
        assert result == ProbeResult(False, None, PgConnectCode.UNREACHABLE, False)
        assert elapsed < 2.0
        summary = probe.summary()
        assert not summary.reachable and summary.p50_ms is None and summary.samples == 0


def test_tls_refusals_keep_their_codes(pg_cluster: Any) -> None:
    other_ca = pg_cluster.desk_conninfo("desk1", root_cert=pg_cluster.other_ca_cert)
    no_cert = pg_cluster.desk_conninfo("desk1", client_cert=False)
    with LatencyProbe(factory(other_ca)) as probe:
        assert probe.probe().code is PgConnectCode.SERVER_CERT_REFUSED
    with LatencyProbe(factory(no_cert)) as probe:
        assert probe.probe().code is PgConnectCode.CLIENT_CERT_REFUSED
    # db.pg.connect.connect raises StoreError: its code passes through unchanged
    with LatencyProbe(lambda: connect(no_cert)) as probe:
        assert probe.probe().code is PgConnectCode.CLIENT_CERT_REFUSED


def test_a_silent_network_is_a_timeout_then_the_probe_recovers(via_proxy: str, proxy: Any) -> None:
    with LatencyProbe(factory(via_proxy), timeout_s=0.5) as probe:
        assert probe.probe().ok
        proxy.freeze()  # the connection stays open and carries nothing
        result, elapsed = timed(probe)
        assert result == ProbeResult(False, None, PgLinkCode.SERVER_TIMEOUT, False)
        assert 0.5 <= elapsed < 1.5
        proxy.thaw()
        again = probe.probe()
        assert again.ok and again.connected  # the silent connection was dropped


def test_a_server_that_hangs_at_connect_is_a_timeout(via_proxy: str, proxy: Any) -> None:
    proxy.pause()  # connections wait in the backlog: the TLS handshake never starts
    slow_connect = via_proxy.replace("connect_timeout=5", "connect_timeout=30")
    with LatencyProbe(factory(slow_connect), timeout_s=0.5) as probe:
        result, elapsed = timed(probe)
        assert result.code is PgLinkCode.SERVER_TIMEOUT and not result.ok
        assert elapsed < 1.0  # the timeout: the connect attempt is left to end on its own
        proxy.resume()
        assert probe.probe().ok


def test_a_cut_connection_is_lost_then_reopened(via_proxy: str, proxy: Any) -> None:
    with LatencyProbe(factory(via_proxy, autocommit=True), timeout_s=5.0) as probe:
        assert probe.probe().ok
        assert proxy.cut() == 1
        result, elapsed = timed(probe)
        assert result == ProbeResult(False, None, PgLinkCode.CONNECTION_LOST, False)
        assert elapsed < 1.0
        assert not probe.summary().reachable
        back = probe.probe()
        assert back.ok and back.connected
        summary = probe.summary()
        assert summary.reachable and summary.samples == 2  # failures carry no time


def test_a_server_that_went_away_is_unreachable_on_reconnect(via_proxy: str, proxy: Any) -> None:
    with LatencyProbe(factory(via_proxy, autocommit=True), timeout_s=5.0) as probe:
        assert probe.probe().ok
        proxy.pause(refuse=True)
        proxy.cut()
        assert probe.probe().code is PgLinkCode.CONNECTION_LOST
        assert probe.probe().code is PgConnectCode.UNREACHABLE
        proxy.resume()
        assert probe.probe().ok


# -- the parts --------------------------------------------------------------------------
def test_classify_failure() -> None:
    lost = "consuming input failed: server closed the connection unexpectedly"
    assert classify_failure(lost) is PgLinkCode.CONNECTION_LOST
    assert classify_failure("SSL SYSCALL error: EOF detected") is PgLinkCode.CONNECTION_LOST
    assert classify_failure("connection refused") is PgConnectCode.UNREACHABLE
    assert classify_failure("something else") is PgConnectCode.CONNECT_FAILED
    # on an established connection a lost link wins over connect's markers
    timed_out = "could not receive data from server: Connection timed out"
    assert classify_failure(timed_out, established=True) is PgLinkCode.CONNECTION_LOST
    refused = StoreError("x", code=PgConnectCode.ACCESS_REFUSED)
    assert classify_failure(refused) is PgConnectCode.ACCESS_REFUSED


def test_arguments_and_texts() -> None:
    with pytest.raises(ValueError):
        LatencyProbe(lambda: psycopg.connect(""), timeout_s=0)
    with pytest.raises(ValueError):
        LatencyProbe(lambda: psycopg.connect(""), window=0)
    for code in PgLinkCode:
        assert catalogue.text(code, "es") != code.value != catalogue.text(code, "en")
