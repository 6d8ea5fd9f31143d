"""The fake answers like the real store: random admission/void/ban/purge histories are
replayed on both and every observable result compared (STYLE.md rule 9)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from admission.clock import FixedClock
from db.fake import FakeStore
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import T0, card_for, dni, entry

KEY = DbKey.generate()

operation = st.one_of(
    st.tuples(st.just("admit"), st.integers(1, 6), st.integers(0, 60), st.integers(1, 40)),
    st.tuples(st.just("refuse"), st.integers(1, 6), st.integers(0, 60), st.just(0)),
    st.tuples(st.just("void"), st.integers(1, 30), st.integers(0, 60), st.just(0)),
    st.tuples(st.just("ban"), st.integers(1, 6), st.integers(0, 60), st.integers(0, 30)),
    st.tuples(st.just("note"), st.integers(1, 6), st.integers(0, 60), st.just(0)),
    st.tuples(st.just("purge"), st.just(0), st.integers(0, 90), st.just(0)),
)


def apply(store: Any, op: tuple[str, int, int, int]) -> object:
    kind, n, day, extra = op
    at = T0 + timedelta(days=day)
    try:
        if kind == "admit":
            return store.record_admission(entry(n, at, card=card_for(at, days=extra)))
        if kind == "refuse":
            return store.record_admission(entry(n, at, card=False, verdict="DENY"))
        if kind == "void":
            return store.void_card(n, "void", "sup", at)
        if kind == "ban":
            expiry = at + timedelta(days=extra) if extra else None
            return store.add_ban(dni(n), "reason", "dir", at, expiry).ban_id
        if kind == "note":
            visitor = store.find_visitor(dni(n))
            if visitor is not None:
                store.add_observation(visitor.file_number, "note", "op", at)
            return visitor is not None
        return store.purge(at)
    except Exception as exc:  # the same error must come from both
        return (type(exc).__name__, getattr(exc, "code", ""))


def state(store: Any) -> object:
    visitors = [store.find_visitor(dni(n)) for n in range(1, 7)]
    files = [v.file_number for v in visitors if v is not None]
    return (
        visitors,
        [store.visits(f) for f in files],
        [store.observations(f) for f in files],
        [store.card(c) for c in range(1, 40)],
        store.last_card_number(),
        [(e.action, e.subject, e.details) for e in store.audit_entries() if e.action != "BAN_ADD"],
    )  # BAN_ADD details: keyed hash, per-store secret


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(operation, max_size=25))
def test_fake_matches_sqlcipher(
    tmp_path_factory: Any, ops: list[tuple[str, int, int, int]]
) -> None:
    path: Path = tmp_path_factory.mktemp("parity") / "v.db"
    clock = FixedClock(T0 + timedelta(days=100))
    fake = FakeStore(clock)
    with SqlCipherStore.open(path, KEY, clock=clock) as real:
        for op in ops:
            assert apply(real, op) == apply(fake, op), op
        assert state(real) == state(fake)
        assert real.verify().ok and fake.verify().ok
