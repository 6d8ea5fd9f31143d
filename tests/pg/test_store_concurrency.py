"""Several desks on one server (Decreto 58/2006, arts. 154-155): processes, each with its
own PgStore and connections, admit in parallel. Card numbers stay one gapless
correlative sequence (art. 22.1), every admission is recorded, one person admitted by
all desks at once gets one card (art. 22), and the audit chain is one chain that
verifies (art. 20.4)."""

from __future__ import annotations

import multiprocessing
import os
import time
from dataclasses import replace
from typing import Any

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from admission.clock import FixedClock
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from tests.db.factories import T0, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

DESKS = 4
# Admissions per desk. The acceptance run of 4 desks x 500 admissions:
#   ADMISSION_PG_ADMISSIONS=500 .venv/bin/pytest -q tests/pg/test_store_concurrency.py
ADMISSIONS = int(os.environ.get("ADMISSION_PG_ADMISSIONS", "100"))
SHARED_PERSON = 999_999  # admitted by every desk at the same moment


def _open(conninfo: str, raw_key: bytes, audit_hex: str, database_id: str) -> PgStore:
    return PgStore.open(
        conninfo,
        InstallationKey(raw_key, "test"),
        audit_key=AuditKey.from_hex(audit_hex, "test"),
        database_id=database_id,
        clock=FixedClock(T0),
        max_connections=1,
    )


def desk(
    conninfo: str,
    raw_key: bytes,
    audit_hex: str,
    database_id: str,
    number: int,
    count: int,
    start_at: float,
) -> tuple[list[tuple[int, int, int | None, int | None]], int]:
    """One desk's process: ``count`` admissions of its own visitors, the shared person
    first; (file, visit, card, existing card) of each, and the store's retries."""
    with _open(conninfo, raw_key, audit_hex, database_id) as store:
        time.sleep(max(0.0, start_at - time.time()))  # every desk starts together
        done = []
        people = [SHARED_PERSON] + [number * 100_000 + i for i in range(1, count)]
        for person in people:
            admission = replace(entry(person), desk_id=f"desk-{number}")
            result = store.record_admission(admission)
            done.append(
                (result.file_number, result.visit_id, result.card_number, result.existing_card)
            )
        return done, store.retries


def _run_desks(pg_cluster: Any, extra_options: str, desks: int, count: int) -> dict[str, Any]:
    schema = fresh_schema(pg_cluster, others=("desk2",))
    raw, audit = os.urandom(32), AuditKey.generate("test")
    with PgStore.open(
        schema_conninfo(pg_cluster, schema),
        InstallationKey(raw, "test"),
        audit_key=audit,
        create=True,
    ) as first:
        database_id = first.database_id
    conninfos = []
    for n in range(desks):
        base = schema_conninfo(pg_cluster, schema, desk="desk1" if n % 2 == 0 else "desk2")
        options = conninfo_to_dict(base)["options"]
        conninfos.append(make_conninfo(base, options=f"{options} {extra_options}".strip()))
    start_at = time.time() + 3.0
    context = multiprocessing.get_context("spawn")
    with context.Pool(desks) as pool:
        results = pool.starmap(
            desk,
            [
                (conninfos[n], raw, audit.hex(), database_id, n + 1, count, start_at)
                for n in range(desks)
            ],
        )
    store = PgStore.open(
        schema_conninfo(pg_cluster, schema),
        InstallationKey(raw, "test"),
        audit_key=AuditKey.from_hex(audit.hex()),
        database_id=database_id,
    )
    return {"store": store, "results": results}


def _check(store: PgStore, results: list[Any], desks: int, count: int) -> None:
    records = [r for done, _retries in results for r in done]
    assert len(records) == desks * count
    cards = sorted(card for _f, _v, card, _e in records if card is not None)
    # art. 22.1: one correlative sequence, no gap, no number twice
    assert cards == list(range(1, len(cards) + 1))
    assert store.last_card_number() == len(cards)
    # the shared person: one card, the other desks found it (art. 22)
    shared = [r for done, _ in results for r in done[:1]]
    assert len({f for f, _v, _c, _e in shared}) == 1
    issued = [c for _f, _v, c, _e in shared if c is not None]
    assert len(issued) == 1
    assert sorted(e for _f, _v, _c, e in shared if e is not None) == issued * (desks - 1)
    assert len(cards) == desks * (count - 1) + 1
    # every admission recorded: its visit, and its entry in the one chain
    visits = {v for _f, v, _c, _e in records}
    assert len(visits) == len(records)
    for file_number, visit_id, card, _existing in records[:: max(1, count // 10)]:
        recorded = {v.visit_id: v for v in store.visits(file_number)}
        assert recorded[visit_id].card_number == card
    entries = store.audit_entries(limit=10 * len(records))
    assert sorted(int(e.details["visit"]) for e in entries if e.action == "VISIT") == sorted(visits)
    check = store.verify()
    assert check.ok, check
    assert check.entries == len(records)


def test_four_desks_admit_in_parallel_on_one_sequence_and_one_chain(pg_cluster: Any) -> None:
    run = _run_desks(pg_cluster, "", DESKS, ADMISSIONS)
    with run["store"] as store:
        _check(store, run["results"], DESKS, ADMISSIONS)


def test_serialisation_failures_are_retried_inside_the_store(pg_cluster: Any) -> None:
    """Under SERIALIZABLE every conflicting desk gets 40001: the store retries, the
    caller sees only its admission recorded."""
    count = 30
    run = _run_desks(pg_cluster, "-c default_transaction_isolation=serializable", 2, count)
    with run["store"] as store:
        _check(store, run["results"], 2, count)
    assert sum(retries for _done, retries in run["results"]) > 0
