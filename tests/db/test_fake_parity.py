"""The fake answers like the real store: random admission/void/ban/purge histories are
replayed on both and every observable result compared (STYLE.md rule 9), the audit
chain's commitments included: under the same audit key both record the same digest of
every visit, card, ban and observation (art. 20.4)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from admission.clock import FixedClock
from db.audit_chain import KINDS
from db.audit_key import AuditKey
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import T0, card_for, dni, entry
from tests.fake_store import FakeStore

KEY = DbKey.generate()
AUDIT_KEY = AuditKey.generate()

operation = st.one_of(
    st.tuples(st.just("admit"), st.integers(1, 6), st.integers(0, 60), st.integers(1, 40)),
    st.tuples(st.just("again"), st.integers(1, 6), st.integers(0, 60), st.integers(1, 40)),
    st.tuples(st.just("print"), st.integers(1, 30), st.integers(0, 60), st.just(0)),
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
        if kind == "again":  # a second admission the same evening (art. 22)
            later = at + timedelta(minutes=20)
            card = card_for(later, days=extra, card_type="WEEK" if extra > 20 else "DAY")
            return store.record_admission(
                entry(n, later, card=card, reentry_types=frozenset({"WEEK"}))
            )
        if kind == "print":
            return store.mark_printed(n, at)
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
    entries = store.audit_entries(limit=10_000)
    erased: Counter[str] = Counter()
    erased_commits: dict[str, str] = {}
    for e in entries:
        if e.action == "ERASED":  # one per erasing transaction: the real purge has several
            erased.update({k: int(e.details.get(k, 0)) for k in KINDS})
            erased_commits.update(e.commits)
    return (
        visitors,
        [store.visits(f) for f in files],
        [store.observations(f) for f in files],
        [store.card(c) for c in range(1, 40)],
        store.last_card_number(),
        [
            # BAN_ADD's identity: a keyed hash under each store's own subject secret
            (e.action, e.subject, {k: v for k, v in e.details.items() if k != "identity"})
            for e in entries
            if e.action != "ERASED"
        ],
        [e.commits for e in entries if e.action != "ERASED"],
        erased,
        erased_commits,
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(operation, max_size=25))
def test_fake_matches_sqlcipher(
    tmp_path_factory: Any, ops: list[tuple[str, int, int, int]]
) -> None:
    path: Path = tmp_path_factory.mktemp("parity") / "v.db"
    clock = FixedClock(T0 + timedelta(days=100))
    fake = FakeStore(clock, audit_key=AUDIT_KEY)
    with SqlCipherStore.open(path, KEY, clock=clock) as real:
        real.use_audit_key(AUDIT_KEY)
        for op in ops:
            assert apply(real, op) == apply(fake, op), op
        assert state(real) == state(fake)
        checks = real.verify(), fake.verify()
        assert checks[0].ok and checks[1].ok
        assert checks[0].rows == checks[1].rows  # the same rows checked against the chain
