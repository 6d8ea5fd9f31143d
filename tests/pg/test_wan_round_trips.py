"""An annex room's desk reaches the casino's server across town (Decreto 58/2006, arts.
154-155): what a clerk waits for is the round trips of one admission. Counted where the
network is - the loopback proxy (tools/tcp_proxy.py), with a delay long enough that every
statement a desk sends at once has gone before the first answer comes back - on the real
TLS server, with the RIAJ replica in the file (art. 20.2)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from admission.clock import FixedClock
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from db.registry_replica import ReplicaRegistry
from tests.factories import SATURDAY_NIGHT, dni_document, make_desk
from tests.pg.cluster_fixture import fresh_schema, pg_cluster, schema_conninfo  # noqa: F401
from tests.pg.test_tcp_proxy import load_proxy, through

# one round trip on each of the evaluation's two connections; a count of one in all was
# seen once on a fresh root and is not explained (a turn is counted per connection when a
# client chunk follows an answer): the bound asserted is that none waits twice
EVALUATION_TURNS = 2
ONE_WAY_S = 0.05  # a round trip of 100 ms: a desk sends a round trip's statements in less


@pytest.fixture
def annex(pg_cluster: Any) -> Iterator[tuple[Any, Any, FixedClock, Any]]:  # noqa: F811
    """A desk behind the proxy: its store, its AdmissionDesk, its clock, the proxy."""
    with load_proxy().TcpProxy(pg_cluster.hostaddr, pg_cluster.port) as proxy:
        conninfo = through(
            schema_conninfo(pg_cluster, fresh_schema(pg_cluster)), pg_cluster.port, proxy.port
        )
        clock = FixedClock(SATURDAY_NIGHT)
        with PgStore.open(
            conninfo,
            InstallationKey.generate("test"),
            audit_key=AuditKey.generate("test"),
            create=True,
            clock=clock,
            min_connections=2,  # both made before: no handshake among the counts
        ) as store:
            registry = ReplicaRegistry(store, clock)
            registry.import_lines([b"00000007\n"])
            desk, _, _ = make_desk(store, registry=registry, clock=clock)
            # the pool's two connections (the registry's check runs beside the reads)
            desk.record(desk.evaluate(dni_document(1)), operator="op-1")
            clock.advance(timedelta(seconds=7))
            proxy.delay_s = ONE_WAY_S
            yield store, desk, clock, proxy


def turns(proxy: Any, act: Any) -> tuple[int, Any]:
    before = proxy.turns
    result = act()
    return proxy.turns - before, result


@pytest.mark.parametrize("number", [2, 1], ids=["new visitor", "known visitor"])
def test_an_admission_waits_three_round_trips_and_its_evaluation_one(
    annex: tuple[Any, Any, FixedClock, Any], number: int
) -> None:
    _store, desk, clock, proxy = annex
    clock.advance(timedelta(days=1))  # the visitor admitted yesterday holds no valid card
    evaluated, evaluation = turns(proxy, lambda: desk.evaluate(dni_document(number)))
    # the registry's check and the desk's reads (bans, staff, open card, file) at once,
    # each on its connection: one round trip of waiting, at most one counted on each
    assert 1 <= evaluated <= EVALUATION_TURNS
    recorded, result = turns(proxy, lambda: desk.record(evaluation, operator="op-1"))
    # the clock's guard; BEGIN, the head's lock and every read; the writes with COMMIT
    assert recorded == 3
    assert result.card is not None and result.card.number == result.recorded.card_number


def test_a_re_entry_reads_the_card_held_and_records_in_the_same_round_trips(
    annex: tuple[Any, Any, FixedClock, Any],
) -> None:
    _store, desk, _clock, proxy = annex
    evaluated, evaluation = turns(proxy, lambda: desk.evaluate(dni_document(1)))
    assert 1 <= evaluated <= EVALUATION_TURNS
    assert evaluation.held_card is not None  # admitted at the fixture's start
    recorded, result = turns(proxy, lambda: desk.record(evaluation, operator="op-1"))
    assert result.card is None and result.reentry
    assert recorded == 4  # and the card held, read again as it is now (art. 22)


def test_the_chain_verifies_after_admissions_recorded_in_two_round_trips(
    annex: tuple[Any, Any, FixedClock, Any],
) -> None:
    """The row macs of an admission's rows are taken from what it wrote, not read back:
    the chain's verification reads every row and agrees."""
    store, desk, clock, proxy = annex
    proxy.delay_s = 0.0
    for number in (3, 4, 3, 1):
        clock.advance(timedelta(seconds=7))
        desk.record(desk.evaluate(dni_document(number)), operator="op-1")
    check = store.verify()
    assert check.ok, check
