"""What the reads on the shared server (the ``PgStore``'s report, data-protection and
inspection ports) keep from the server and how they plug into the services:

* a rectification leaves the old value nowhere on the server in clear - not in its
  audit entry, not in any row, not in the name tokens - and the chain verifies
  (art. 20.4; GDPR arts. 16 and 32);
* the day book, the figures, the access report, the retention counts and the desk
  counters give the fake store's answers (and the SQLCipher file's counters) on the
  same history;
* the ``PgStore`` alone (no other object) serves ReportService, DataProtectionService,
  InspectionService and the counters panel.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from admission.accounts import Operator, Role
from admission.clock import FixedClock
from admission.counters import CounterReader
from admission.data_protection import (
    DataProtectionService,
    DataProtectionStore,
    month_spans,
)
from admission.inspection import (
    InspectionAudit,
    InspectionReader,
    InspectionService,
    SearchCriteria,
)
from admission.reports import ReportService, ReportStore
from db import names
from db.audit_key import AuditKey
from db.keys import DbKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from db.pg.store import PgStore as ContractStore
from db.reports import desk_counters
from db.store import SqlCipherStore
from db.tx import Tx
from tests.db.factories import T0, dni, entry
from tests.db.test_reports import CASINO, MemoryTarget, PlainRenderer
from tests.fake_store import FakeStore
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo
from tests.pg.cluster_fixture import open_store as open_reads
from tests.pg.test_reads_search import DAYS, PEOPLE, _history

DIRECTOR = Operator("dora", "Dora Gil", frozenset({Role.DIRECTOR}))
INSPECTOR = Operator("ines", "Inés Ruiz", frozenset({Role.INSPECTOR}))
KW: dict[str, Any] = {"actor": "dora", "role": "DIRECTOR", "reason": "Error de tecleo", "at": T0}


def _server_text(reads: ContractStore) -> str:
    """Every row of every table of the visitor file as the server holds it (sealed
    values as their bytes, in hex), one text."""
    tables = [
        str(r[0])
        for r in reads.read(
            lambda tx: tx.all(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
        )
    ]
    assert {"audit", "visitors", "observations", "name_tokens"} <= set(tables)
    out: list[str] = []
    for table in tables:
        query = f"SELECT t::text FROM {table} AS t"

        def read(tx: Tx, query: str = query) -> list[tuple[Any, ...]]:
            return tx.all(query)

        out.extend(str(r[0]) for r in reads.read(read))
    return "\n".join(out)


def _absent(reads: ContractStore, *texts: str) -> None:
    held = _server_text(reads)
    for text in texts:
        for form in {text, text.lower(), names.fold(text)}:
            assert form not in held, form
            assert form.encode().hex() not in held, form


def test_a_rectified_name_is_nowhere_on_the_server_in_clear(pg_cluster: Any) -> None:
    with open_reads(pg_cluster, FixedClock(T0)) as reads:
        reads.record_admission(entry(1, surname="ZUBIZARRETA", given_names="ONOFRE"))
        reads.record_admission(entry(2, surname="LÓPEZ", given_names="ANA"))
        old_tokens = set(reads.ring.name_tokens("ZUBIZARRETA", "ONOFRE"))
        reads.rectify_visitor_name(1, "GARCÍA", "ONOFRE", **KW)
        _absent(reads, "ZUBIZARRETA", "ZUBIZ")
        assert "Error de tecleo" in _server_text(reads)  # the dump does show clear text
        [audit] = [e for e in reads.audit_entries(0, 100) if e.action == "RECTIFIED"]
        assert audit.details["old_surname"] == reads.keyed_hash("ZUBIZARRETA")
        assert audit.details["old_surname"].startswith("hmac:")
        held = {
            bytes(r[0])
            for r in reads.read(
                lambda tx: tx.all("SELECT token FROM name_tokens WHERE file_number = 1")
            )
        }
        assert held == set(reads.ring.name_tokens("GARCÍA", "ONOFRE"))
        assert not {t for t in old_tokens if t not in held} & held
        assert reads.search_visitors("zubiz") == []
        assert reads.verify().ok


def test_a_rectified_observation_is_nowhere_on_the_server_in_clear(pg_cluster: Any) -> None:
    with open_reads(pg_cluster, FixedClock(T0)) as reads:
        reads.record_admission(entry(1))
        reads.add_observation(1, "Quejoso con el crupier Fulgencio", "op-7", T0)
        [note] = reads.observations(1)
        reads.rectify_observation_text(1, note.observation_id, "Nota corregida", **KW)
        _absent(reads, "Fulgencio", "Quejoso")
        assert [o.text for o in reads.observations(1)] == ["Nota corregida"]
        assert reads.verify().ok


def test_a_rectification_under_an_older_data_key_reseals_the_whole_row(pg_cluster: Any) -> None:
    """Every sealed value of the row is under the version its ``key_version`` names."""
    with open_reads(pg_cluster, FixedClock(T0)) as reads:
        reads.record_admission(entry(1, surname="GARCIA", given_names="ANA"))
        reads.rectify_visitor_name(1, "GARCIA", "ANNA", **KW)
        version = reads.ring.current_version
        row = reads.read(
            lambda tx: tx.one(
                "SELECT key_version, identity, surname, given_names, birth_date, nationality "
                "FROM visitors WHERE file_number = 1"
            )
        )
        assert row is not None and int(row[0]) == version
        for sealed in row[1:]:
            assert int.from_bytes(bytes(sealed)[1:3], "big") == version
        assert reads.find_visitor(reads.visitor(1).identity).given_names == "ANNA"  # type: ignore[union-attr]


# -- the same answers as the fake store on one history --------------------------------------


@pytest.fixture
def both(pg_cluster: Any) -> Any:
    clock = FixedClock(T0)
    with open_reads(pg_cluster, clock) as reads:
        fake = FakeStore(clock)
        _history([fake, reads], seed=99)
        yield fake, reads


def _span(day: int) -> tuple[datetime, datetime]:
    start = T0 + timedelta(days=day) - timedelta(hours=6)
    return start, start + timedelta(days=1)


def test_the_day_book_and_figures_answer_as_the_fake_store(
    both: tuple[FakeStore, ContractStore],
) -> None:
    fake, reads = both
    for day in range(-1, DAYS + 1):
        start, until = _span(day)
        assert list(reads.day_book_lines(start, until)) == list(fake.day_book_lines(start, until))
        got, want = reads.figure_counts(start, until), fake.figure_counts(start, until)
        assert got.by_hour == want.by_hour
        assert sorted(got.card_types) == sorted(want.card_types)
        assert sorted(got.reasons) == sorted(want.reasons)
        assert (got.voided, got.visitors) == (want.voided, want.visitors)
    whole = (T0 - timedelta(days=2), T0 + timedelta(days=DAYS + 2))
    assert len(reads.day_book_lines(*whole)) == len(fake.day_book_lines(*whole)) > PEOPLE


def test_the_access_report_answers_as_the_fake_store(both: tuple[FakeStore, ContractStore]) -> None:
    fake, reads = both
    for n in (1, 3, PEOPLE):
        got, want = reads.access_report_data(n), fake.access_report_data(n)
        assert got is not None and want is not None
        assert (got.visitor, got.timeline, got.bans, got.staff) == (
            want.visitor,
            want.timeline,
            want.bans,
            want.staff,
        )
        assert [o.text for o in got.observations] == [o.text for o in want.observations]
    assert reads.access_report_data(PEOPLE + 5) is None


def test_the_retention_counts_answer_as_the_fake_store(
    both: tuple[FakeStore, ContractStore],
) -> None:
    fake, reads = both
    for cutoff in (T0, T0 + timedelta(days=2), T0 + timedelta(days=DAYS + 1)):
        assert reads.retention_totals(cutoff) == fake.retention_totals(cutoff)
    spans = month_spans(T0 - timedelta(days=40), T0 + timedelta(days=40))
    assert reads.retention_months(spans) == fake.retention_months(spans)
    assert reads.retention_months([]) == ()


def test_the_desk_counters_answer_as_the_sqlcipher_file(pg_cluster: Any, tmp_path: Path) -> None:
    clock = FixedClock(T0)
    with (
        open_reads(pg_cluster, clock) as reads,
        SqlCipherStore.open(tmp_path / "v.db", DbKey.generate(source="test"), clock=clock) as file,
    ):
        _history([file, reads], seed=5)
        counter: CounterReader = partial(desk_counters, reads)
        nows = [T0 + timedelta(days=d, hours=h) for d in range(-1, DAYS + 1) for h in (0, 5, 13)]
        seen = set()
        for now in nows:
            expected = desk_counters(file, now)
            assert counter(now) == expected == desk_counters(reads, now), now
            seen.add(expected)
        assert len(seen) > 5  # the counts moved


# -- the services over the store alone ---------------------------------------------------


def test_the_services_take_the_reads_in_place_of_the_sqlcipher_store(pg_cluster: Any) -> None:
    clock = FixedClock(T0 + timedelta(hours=1))
    with open_reads(pg_cluster, clock) as contract:
        store = contract
        store.record_admission(entry(1, surname="GARCÍA", given_names="ANA"))
        store.add_observation(1, "Nota", "op-7", T0)
        reads = store  # the report, data-protection and inspection ports are its own
        as_report: ReportStore = reads
        as_protection: DataProtectionStore = reads
        as_reader: InspectionReader = reads
        as_audit: InspectionAudit = reads
        inspection = InspectionService(as_reader, as_audit, clock)
        found = inspection.search(INSPECTOR, "Expediente 1/2026", name="garcia")
        assert [v.file_number for v in found] == [1]
        assert inspection.timeline(INSPECTOR, "Expediente 1/2026", 1).visitor.surname == "GARCÍA"
        protection = DataProtectionService(as_protection, clock)
        assert protection.rectify_name(DIRECTOR, 1, "GARCÍA", "ANA MARÍA", "Error").given_names == (
            "ANA MARÍA"
        )
        [note] = store.observations(1)
        protection.rectify_observation(DIRECTOR, 1, note.observation_id, "Nota buena", "Error")
        overview = protection.retention(DIRECTOR)
        assert (overview.visits, overview.observations) == (1, 1)
        assert sum(m.visits for m in overview.months) == 1
        reports = ReportService(as_report, clock, PlainRenderer(), CASINO)
        day = date(2026, 1, 10)
        assert [line.surname for line in reports.day_book(DIRECTOR, day).lines] == ["GARCÍA"]
        assert reports.figures(DIRECTOR, day, day).date_from == day
        target = MemoryTarget()
        reports.export_day_book(
            INSPECTOR, day, target, purpose="Expediente 12/2026 de la inspección"
        )
        assert target.data is not None and "GARCÍA".encode() in target.data
        report = reports.access_report(DIRECTOR, "Solicitud de acceso", file_number=1)
        assert report.consultations >= 2
        actions = [e.action for e in store.audit_entries(0, 100)]
        assert {"INSPECT_SEARCH", "INSPECT_TIMELINE", "RECTIFIED", "REPORT_DAY"} <= set(actions)
        assert store.verify().ok
        assert desk_counters(reads, T0 + timedelta(minutes=1)).admitted_today == 1


# -- two data key versions (a re-encryption under way) --------------------------------------


def test_the_reads_span_two_data_key_versions(pg_cluster: Any) -> None:
    """Rows sealed and tokenised under version 1 and version 2 side by side (a
    re-encryption not yet run): the search finds both, a rectification reseals an old
    row under the current version, and the fake store gives the same answers."""
    conninfo = schema_conninfo(pg_cluster, fresh_schema(pg_cluster))
    installation, audit = InstallationKey.generate("test"), AuditKey.generate("test")
    clock = FixedClock(T0)
    fake = FakeStore(clock)

    def opened() -> PgStore:
        return PgStore.open(conninfo, installation, audit_key=audit, create=True, clock=clock)

    people = [(1, "GARCÍA LÓPEZ", "ANA"), (2, "GARCÍA", "LUIS"), (3, "LÓPEZ", "ANA MARÍA")]
    with opened() as first:
        for n, surname, given in people[:2]:
            for store in (first, fake):
                store.record_admission(entry(n, surname=surname, given_names=given))
        _ring, record = first.ring.with_new_version(installation)
        first.write(
            lambda tx: tx.conn.execute(
                "INSERT INTO data_keys (version, key_tag, wrapping_key_id, blob) "
                "VALUES (%s, %s, %s, %s)",
                (record.version, record.key_tag, record.wrapping_key_id, record.blob),
            )
        )
    with opened() as store:
        assert store.ring.versions == (2, 1)
        n, surname, given = people[2]
        for each in (store, fake):
            each.record_admission(
                entry(n, T0 + timedelta(hours=1), surname=surname, given_names=given)
            )
        reads = store
        versions = store.read(
            lambda tx: tx.all("SELECT file_number, key_version FROM visitors ORDER BY 1")
        )
        assert [int(v) for _fn, v in versions] == [1, 1, 2]
        criteria = [
            SearchCriteria(name="garcia"),
            SearchCriteria(name="lopez ana"),
            SearchCriteria(name="ana garcia lopez"),
            SearchCriteria(id_number=dni(1).number),
            SearchCriteria(id_number=dni(3).number, name="lop"),
            SearchCriteria(visits_from=T0),
        ]

        def same() -> None:
            for c in criteria:
                assert reads.inspect_visitors(c, 10) == list(fake.inspect_visitors(c, 10)), c

        same()
        reads.rectify_visitor_name(2, "GARCÍA", "LUISA", **KW)
        fake.rectify_visitor_name(2, "GARCÍA", "LUISA", **KW)
        same()
        row = store.read(
            lambda tx: tx.one("SELECT key_version FROM visitors WHERE file_number = 2")
        )
        assert row is not None and int(row[0]) == 2
        tokens = store.read(
            lambda tx: tx.all("SELECT token FROM name_tokens WHERE file_number = 2")
        )
        assert {bytes(t[0]) for t in tokens} == set(store.ring.name_tokens("GARCÍA", "LUISA"))
        assert store.verify().ok
