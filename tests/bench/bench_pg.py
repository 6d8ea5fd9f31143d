"""Benchmark of the visitor file on a PostgreSQL server (Decreto 58/2006, arts. 154-155:
several desks of one operating unit share one file) beside the SQLCipher file of one desk.

    .venv/bin/python tests/bench/bench_pg.py                     # 1,000,000 visitors
    .venv/bin/python tests/bench/bench_pg.py --visitors 20000    # quick run

What it does, in one run:

* Starts its own throwaway TLS cluster (tools/pg_cluster.py, as the tests' fixture does)
  with four desk roles, each with its own client certificate.
* Takes the data set of tests/bench/bench_store.py (``cached_files``: N visitors, 5N
  visits, Zipf names, built once and cached under ``--cache-dir``) and loads it into two
  schemas with db/pg/copy_file.py's copier (its batch insert, one transaction a batch,
  every value sealed exactly as PgStore seals it; the load time is printed):

  - **sealed**: PgStore as it is (AES-256-GCM values, HMAC blind indexes and tokens);
  - **plain**: the same PgStore, schema, SQL and transactions, with the key ring swapped
    for an identity codec (:class:`PlainRing`: a "sealed" value is its UTF-8 text, an
    identity's index is its text, a name token is the prefix itself). The ratio
    sealed/plain is the cost of the application-level encryption alone.

* Then, on the server with durability on (``fsync``, ``full_page_writes``; the sessions
  ask ``synchronous_commit = on`` themselves): lookups by identity, name searches, and
  admissions (ban check + staff check + lookup + ``record_admission`` with an admission
  id, card number included) with 1, 2 and 4 desks at once - separate processes, each its
  own PgStore - and the same admissions on the single desk's SQLCipher file
  (bench_store's file, a working copy) in the same run; admissions per second with no
  pause between them (saturation); the purge of one expired day (art. 20.4), time and
  rows. The SQLCipher file gets the same lookups, searches and purges.

The loads run with ``fsync = off`` (a bulk load; the cluster is throwaway). The data is
synthetic and the keys are bench constants: never point this script at real data.

Prints ONE markdown table.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from admission.identity import IdentityKey  # noqa: E402
from admission.records import AdmissionEntry, AuditHead, NewCard, RegistryCheck  # noqa: E402
from db.audit_chain import GENESIS  # noqa: E402
from db.audit_key import ENV_VAR, AuditKey  # noqa: E402
from db.pg.copy_file import Copier, CopyProgress, file_identity  # noqa: E402
from db.pg.crypto import InstallationKey, KeyRing, _DataKey  # noqa: E402
from db.pg.store import PgStore  # noqa: E402
from db.store import SqlCipherStore  # noqa: E402
from tests.bench import bench_inspection as bi  # noqa: E402
from tests.bench import bench_store as bs  # noqa: E402
from tests.db.factories import new_admission_id  # noqa: E402
from tests.db.plain_store import open_plain  # noqa: E402
from tests.pg.cluster_fixture import fresh_schema, load_tool, schema_conninfo  # noqa: E402

T = TypeVar("T")
DESKS = ("desk1", "desk2", "desk3", "desk4")
DESK_COUNTS = (1, 2, 4)
VARIANTS = ("sealed", "plain")
SQLCIPHER = "sqlcipher"
BENCH_INSTALLATION = bytes.fromhex("17" * 32)  # a bench constant, never a real key
BENCH_AUDIT = "2a" * 32
START_DELAY_S = 0.5  # every desk process of a round opens its store, then all start
LOAD_BATCH = 5_000  # rows per copy transaction (each under the store's 20 s watchdog)


# -- the unencrypted baseline ----------------------------------------------------------


class _PlainKey(_DataKey):
    """A data key that hides nothing: an identity's index is its text, a name token is
    the prefix itself (no HMAC)."""

    def __init__(self, version: int) -> None:  # no key material to derive
        self.version = version
        self.tag = 0

    def index(self, info: bytes, text: str) -> bytes:
        return text.encode("utf-8")


class PlainRing(KeyRing):
    """The identity codec: ``seal`` returns the plaintext, ``open`` the stored bytes.
    Everything else (token sets, name queries, versions) is KeyRing's own code."""

    def __init__(self, database_id: str) -> None:  # no data key to unwrap
        self.database_id = database_id
        self._keys = {1: _PlainKey(1)}
        self.current_version = 1

    def seal(self, plaintext: bytes, *, table: str, column: str, row: str | int) -> bytes:
        return plaintext

    def open(self, envelope: bytes, *, table: str, column: str, row: str | int) -> bytes:
        return envelope


class PlainPgStore(PgStore):
    """PgStore with :class:`PlainRing` in place of the database's key ring: the same SQL,
    transactions, locks and audit chain, values and indexes in clear."""

    def __init__(self, pool: Any, ring: KeyRing, *args: Any, **kwargs: Any) -> None:
        super().__init__(pool, PlainRing(ring.database_id), *args, **kwargs)


def open_store(
    variant: str, conninfo: str, database_id: str | None, *, create: bool = False, pool: int = 2
) -> PgStore:
    kind = PgStore if variant == "sealed" else PlainPgStore
    return kind.open(
        conninfo,
        InstallationKey(BENCH_INSTALLATION, "bench"),
        audit_key=AuditKey.from_hex(BENCH_AUDIT, "bench"),
        database_id=database_id,
        create=create,
        max_connections=pool,
    )


# -- work run in the desk processes ------------------------------------------------------


def in_child(task: Callable[..., T]) -> Callable[..., T]:
    """A task's failure as a RuntimeError naming it: some of the store's exceptions
    cannot be rebuilt from a pickle, and the pool would then wait forever."""

    @functools.wraps(task)
    def run(*args: Any) -> T:
        try:
            return task(*args)
        except Exception as exc:
            raise RuntimeError(f"{task.__name__}: {type(exc).__name__}: {exc}") from None

    return run


@in_child
def load_task(variant: str, source: str, conninfo: str, database_id: str) -> tuple[float, int]:
    """Copy bench_store's file into the schema with copy_file's copier (no verification:
    the bench file holds rows no audit entry covers). Seconds and rows written."""
    with (
        open_plain(Path(source)) as src,
        open_store(variant, conninfo, database_id) as target,
    ):
        head = src.head()
        copier = Copier(src, target, LOAD_BATCH, _loading(variant), head, file_identity(src, head))
        started = time.perf_counter()
        copier.begin()
        # The rows only: the source's chain (its adoption entries name every row of the
        # data set) is not carried; the copy's own tests check that. The server's chain
        # starts at the FILE_MIGRATED entry that ``finish`` appends.
        copier.set_head(AuditHead(0, GENESIS, None))
        copier.copy_rows()
        copier.finish("bench")
        return time.perf_counter() - started, sum(copier.report.copied.values())


def _loading(variant: str) -> Callable[[CopyProgress], None]:
    def report(done: CopyProgress) -> None:
        if done.batches % 100 == 0:
            progress(f"{variant} load: {done.step} {done.rows:,} rows, {done.batches} batches")

    return report


def admission_entry(identity: int, at: datetime) -> AdmissionEntry:
    """As bench_store's admissions: a DNI, a one-day standard card (art. 22)."""
    day = at.date()
    return AdmissionEntry(
        bs.dni(identity),
        "Bench Núñez",
        "Visitante",
        date(1980, 1, 1),
        "ESP",
        "DNI",
        "CAA0000000",
        at,
        "desk-1",
        "op-1",
        "ADMIT",
        (),
        RegistryCheck("NOT_LISTED", "REPLICA", "v", 60),
        NewCard("STANDARD", 500, day, day),
    )


def entries(visitors: int, round_no: int, desk: int, count: int) -> list[AdmissionEntry]:
    """One desk's admissions of one round: two thirds known visitors, one third new
    (identities no other desk or round uses), seven seconds apart."""
    rng = random.Random(1000 * round_no + desk)
    base = bs.END + timedelta(hours=round_no, milliseconds=desk)
    fresh = visitors * 10 + (round_no * 10 + desk) * 100_000
    return [
        admission_entry(rng.randint(1, visitors) if k % 3 else fresh + k, base + k * 7 * SECOND)
        for k in range(count)
    ]


SECOND = timedelta(seconds=1)


def admit(store: PgStore | SqlCipherStore, entry: AdmissionEntry) -> float:
    """The desk's round trip for one person: ban and staff checks, the lookup, the
    record with its card number (one transaction). Seconds."""
    started = time.perf_counter()
    store.active_bans(entry.identity, entry.at)
    store.staff_member(entry.identity)
    store.find_visitor(entry.identity)
    if isinstance(store, PgStore):
        store.record_admission(entry, admission_id=new_admission_id())
    else:
        store.record_admission(entry)
    return time.perf_counter() - started


@in_child
def desk_task(
    variant: str,
    conninfo: str,
    database_id: str,
    work: list[AdmissionEntry],
    start_at: float,
) -> tuple[list[float], float, float, int]:
    """One desk process: its own PgStore, its admissions back to back from ``start_at``
    (every desk of the round starts together). Latencies, start, end, retries."""
    with open_store(variant, conninfo, database_id, pool=1) as store:
        store.find_visitor(bs.dni(1))  # the pool's connection is up before the clock
        time.sleep(max(0.0, start_at - time.time()))
        began = time.time()
        samples = [admit(store, entry) for entry in work]
        return samples, began, time.time(), store.retries


# -- the run ---------------------------------------------------------------------------

Results = dict[str, dict[str, list[float]]]


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.results: Results = {}
        self.notes: dict[str, str] = {}
        self.single: dict[str, dict[str, str]] = {}  # rows of one value per variant

    def add(self, name: str, variant: str, seconds: float) -> None:
        self.results.setdefault(name, {}).setdefault(variant, []).append(seconds)


def start_cluster(base: Path) -> Any:
    tool = load_tool()
    if tool.find_bin_dir() is None:
        raise SystemExit("PostgreSQL is not installed (Debian package postgresql)")
    cluster = tool.PgCluster(base, desks=DESKS)
    try:
        cluster.start()
        # A server sized for the file, not the tests' 16 MB (needs a restart).
        superuser(cluster, "ALTER SYSTEM SET shared_buffers = '1GB'")
        superuser(cluster, "ALTER SYSTEM SET max_wal_size = '4GB'")
        superuser(cluster, "ALTER SYSTEM SET maintenance_work_mem = '256MB'")
        cluster._run(
            [
                str(cluster.bin_dir / "pg_ctl"),
                "-D",
                str(cluster.data_dir),
                "-l",
                str(cluster.server_dir / "server.log"),
                "-w",
                "restart",
            ],
            "pg_ctl restart",
        )
    except BaseException:
        cluster.stop()
        raise
    return cluster


def superuser(cluster: Any, statement: str) -> Any:
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        return conn.execute(statement).fetchall() if statement.startswith("SHOW") else None


def durable(cluster: Any) -> None:
    """Durability on for the measurements, the load flushed first."""
    for setting in ("fsync", "full_page_writes"):
        superuser(cluster, f"ALTER SYSTEM SET {setting} = on")
    superuser(cluster, "SELECT pg_reload_conf()")
    superuser(cluster, "CHECKPOINT")


def vacuum(cluster: Any, schema: str) -> None:
    """What autovacuum would have done to a file months old (visibility map, hint bits,
    statistics)."""
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        for table in ("visitors", "name_tokens", "visits", "cards", "observations", "bans"):
            conn.execute(
                sql.SQL("VACUUM (ANALYZE) {}.{}").format(*map(sql.Identifier, (schema, table)))
            )


def progress(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def conninfo_for(cluster: Any, schema: str, desk: int) -> str:
    return schema_conninfo(cluster, schema, desk=DESKS[desk % len(DESKS)])


def run(args: argparse.Namespace, cluster: Any, work: Path, pool: Pool) -> Bench:
    bench = Bench(args)
    visitors = args.visitors
    plain_cache, enc_cache = bs.cached_files(args.cache_dir, visitors, args.extra_days)
    # The files as the SQLCipher store leaves them after its first write (the data set's
    # rows adopted by the keyed chain: ~10 minutes a file on 1M visitors), cached once
    # by bench_inspection; one copy per user, since opening a file writes to it.
    opened_enc = bi.opened_once(enc_cache, encrypted=True)
    opened_plain = bi.opened_once(plain_cache, encrypted=False)
    enc_work = work / "enc" / "visitors.db"
    enc_work.parent.mkdir()
    shutil.copyfile(opened_enc, enc_work)
    shutil.copyfile(bi.marker(opened_enc), bi.marker(enc_work))
    sources = {}
    for variant in VARIANTS:
        sources[variant] = work / f"source-{variant}.db"
        shutil.copyfile(opened_plain, sources[variant])
    progress("working copies made")
    schemas: dict[str, str] = {}
    ids: dict[str, str] = {}
    for variant in VARIANTS:
        schemas[variant] = fresh_schema(cluster, owner=DESKS[0], others=DESKS[1:])
        with open_store(
            variant, conninfo_for(cluster, schemas[variant], 0), None, create=True
        ) as store:
            ids[variant] = store.database_id
    # Both loads at once (two processes: one seals while the server inserts the other's).
    loads = {
        variant: pool.apply_async(
            load_task,
            (
                variant,
                str(sources[variant]),
                conninfo_for(cluster, schemas[variant], 0),
                ids[variant],
            ),
        )
        for variant in VARIANTS
    }
    load_name = f"load {visitors:,} visitors + {5 * visitors:,} visits (copy_file batches)"
    rows = 0
    for variant, pending in loads.items():
        seconds, rows = pending.get()
        bench.add(load_name, variant, seconds)
    bench.notes[load_name] = f"{rows:,} rows each, both loads at once, fsync off"
    progress(f"loaded: {bench.results[load_name]}")
    started = time.perf_counter()
    for variant in VARIANTS:
        vacuum(cluster, schemas[variant])
    durable(cluster)
    progress(f"vacuum + checkpoint after the load: {time.perf_counter() - started:.0f} s")
    stores: dict[str, PgStore | SqlCipherStore] = {
        variant: open_store(variant, conninfo_for(cluster, schemas[variant], 0), ids[variant])
        for variant in VARIANTS
    }
    stores[SQLCIPHER] = SqlCipherStore.open(enc_work, bs.BENCH_KEY, create=False)
    try:
        started = time.perf_counter()
        reads(bench, stores, visitors)
        progress(f"lookups and searches: {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        admissions(bench, stores, cluster, schemas, ids, pool)
        progress(f"admissions: {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        purges(bench, stores)
        progress(f"purges: {time.perf_counter() - started:.0f} s")
    finally:
        for opened in stores.values():
            opened.close()
    return bench


def alternate(
    bench: Bench,
    name: str,
    stores: dict[str, PgStore | SqlCipherStore],
    turn: int,
    fn: Callable[[PgStore | SqlCipherStore], object],
) -> None:
    """One sample on every store, the order rotating, so drifting load from other
    processes hits every side alike."""
    order = list(stores.items())
    k = turn % len(order)
    for variant, store in order[k:] + order[:k]:
        started = time.perf_counter()
        fn(store)
        bench.add(name, variant, time.perf_counter() - started)


def reads(bench: Bench, stores: dict[str, PgStore | SqlCipherStore], visitors: int) -> None:
    rng = random.Random(11)
    for _ in range(200):  # warm up like a desk that has been open a while
        identity = bs.dni(rng.randint(1, visitors))
        for store in stores.values():
            store.find_visitor(identity)
    for turn in range(bench.args.lookups):
        identity = bs.dni(rng.randint(1, visitors))
        alternate(
            bench,
            "lookup by identity (find_visitor)",
            stores,
            turn,
            _lookup(identity),
        )
    for query in bs.search_queries(random.Random(12), 50):
        for store in stores.values():
            store.search_visitors(query)
    for turn, query in enumerate(bs.search_queries(rng, bench.args.searches)):
        alternate(
            bench,
            "name search, accent-insensitive (≤50 hits)",
            stores,
            turn,
            _search(query),
        )


def _lookup(identity: IdentityKey) -> Callable[[PgStore | SqlCipherStore], object]:
    return lambda store: store.find_visitor(identity)


def _search(query: str) -> Callable[[PgStore | SqlCipherStore], object]:
    return lambda store: store.search_visitors(query)


def admission_name(desks: int) -> str:
    return f"admission, {desks} desk{'s' if desks > 1 else ''} at once (checks + record + card)"


def rate_name(desks: int) -> str:
    return f"admissions per second, {desks} desk{'s' if desks > 1 else ''}, no pause"


def admissions(
    bench: Bench,
    stores: dict[str, PgStore | SqlCipherStore],
    cluster: Any,
    schemas: dict[str, str],
    ids: dict[str, str],
    pool: Pool,
) -> None:
    count, visitors = bench.args.admissions, bench.args.visitors
    round_no = 0
    retries = dict.fromkeys(VARIANTS, 0)
    for desks in DESK_COUNTS:
        for variant in VARIANTS if desks % 2 else VARIANTS[::-1]:
            round_no += 1
            start_at = time.time() + START_DELAY_S
            pending = [
                pool.apply_async(
                    desk_task,
                    (
                        variant,
                        conninfo_for(cluster, schemas[variant], d),
                        ids[variant],
                        entries(visitors, round_no, d, count),
                        start_at,
                    ),
                )
                for d in range(desks)
            ]
            done = [p.get() for p in pending]
            for samples, _began, _ended, tried in done:
                for seconds in samples:
                    bench.add(admission_name(desks), variant, seconds)
                retries[variant] += tried
            wall = max(d[2] for d in done) - min(d[1] for d in done)
            bench.single.setdefault(rate_name(desks), {})[variant] = f"{desks * count / wall:.0f}/s"
    # The single desk's SQLCipher file, same admissions, in this process.
    round_no += 1
    work = entries(visitors, round_no, 0, count)
    store = stores[SQLCIPHER]
    began = time.perf_counter()
    for entry in work:
        bench.add(admission_name(1), SQLCIPHER, admit(store, entry))
    rate = count / (time.perf_counter() - began)
    bench.single.setdefault(rate_name(1), {})[SQLCIPHER] = f"{rate:.0f}/s"
    bench.notes[admission_name(4)] = (
        f"{count} per desk; retries after 40001/40P01: sealed {retries['sealed']}, "
        f"plain {retries['plain']}"
    )


def purges(bench: Bench, stores: dict[str, PgStore | SqlCipherStore]) -> None:
    extra = bench.args.extra_days
    first_day = bs.END - timedelta(days=bs.DAYS + extra)
    name = f"purge one expired day (~{5 * bench.args.visitors // (bs.DAYS + extra):,} visits)"
    erased: dict[str, int] = {}
    for k in range(1, extra + 1):
        cutoff = first_day + timedelta(days=k)
        order = list(stores.items())
        for variant, store in order[k % 3 :] + order[: k % 3]:
            started = time.perf_counter()
            report = store.purge(cutoff)
            bench.add(name, variant, time.perf_counter() - started)
            erased[variant] = erased.get(variant, 0) + report.visits
    bench.notes[name] = "visits erased per day: " + ", ".join(
        f"{v} {n / extra:,.0f}" for v, n in erased.items()
    )


# -- the table ---------------------------------------------------------------------------


def cell(values: list[float] | None, q: float) -> str:
    return bs.ms(bs.pct(values, q)) if values else "—"


def table(bench: Bench, server: str) -> str:
    args = bench.args
    lines = [
        f"Visitor file on PostgreSQL {server}: {args.visitors:,} visitors, "
        f"{5 * args.visitors:,} visits (bench_store's data set); TLS 1.3 on loopback, "
        f"fsync on for the measurements; sealed = PgStore (AES-256-GCM, HMAC indexes), "
        f"plain = the same PgStore with an identity codec; SQLCipher = bench_store's file, "
        f"one desk, SQLCipher {bs.sqlcipher_version()}; {os.cpu_count()} CPUs",
        "",
        "| operation | n | sealed p50 | sealed p95 | plain p50 | plain p95 "
        "| sealed/plain p50 | SQLCipher p50 | SQLCipher p95 | note |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    names = list(bench.results)
    order = [n for n in names if n.startswith("load")]
    order += [n for n in names if not n.startswith(("load", "purge"))]
    for desks in DESK_COUNTS:
        order.append(rate_name(desks))
    order += [n for n in names if n.startswith("purge")]
    for name in order:
        note = bench.notes.get(name, "")
        if name in bench.single:
            by = bench.single[name]
            lines.append(
                f"| {name} | 1 | {by.get('sealed', '—')} | | {by.get('plain', '—')} | | "
                f"| {by.get(SQLCIPHER, '—')} | | {note} |"
            )
            continue
        by_values = bench.results[name]
        sealed, plain = by_values.get("sealed"), by_values.get("plain")
        ratio = f"{bs.pct(sealed, 50) / bs.pct(plain, 50):.2f}" if sealed and plain else "—"
        n = len(sealed or plain or [])
        lines.append(
            f"| {name} | {n} | {cell(sealed, 50)} | {cell(sealed, 95)} | {cell(plain, 50)} "
            f"| {cell(plain, 95)} | {ratio} | {cell(by_values.get(SQLCIPHER), 50)} "
            f"| {cell(by_values.get(SQLCIPHER), 95)} | {note} |"
        )
    return "\n".join(lines)


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--visitors", type=int, default=1_000_000)
    parser.add_argument("--admissions", type=int, default=300, help="per desk and round")
    parser.add_argument("--extra-days", type=int, default=5, help="expired days (purges)")
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/admission-bench"))
    parser.add_argument(
        "--keep-cluster", action="store_true", help="leave the server running at the end"
    )
    args = parser.parse_args(argv)
    # the SQLCipher files' chain key, as bench_inspection keyed them (children inherit it)
    os.environ[ENV_VAR] = bi.AUDIT_KEY.hex()
    signal.signal(signal.SIGTERM, _terminated)  # `kill` still stops the cluster
    base = Path(tempfile.mkdtemp(prefix="admission-bench-pg-"))
    work = args.cache_dir / f"work-pg-{os.getpid()}"
    work.mkdir(parents=True)
    cluster = start_cluster(base)
    try:
        with multiprocessing.get_context("spawn").Pool(len(DESKS)) as pool:
            bench = run(args, cluster, work, pool)
        server = str(superuser(cluster, "SHOW server_version")[0][0]).split()[0]
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.keep_cluster:
            print(f"cluster kept: {cluster.superuser_conninfo()} (folder {base})", file=sys.stderr)
        else:
            cluster.stop()
    print(table(bench, server))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
