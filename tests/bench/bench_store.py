"""Benchmark of the visitor file: SQLCipher vs plain SQLite.

    .venv/bin/python tests/bench/bench_store.py                  # 1,000,000 visitors
    .venv/bin/python tests/bench/bench_store.py --visitors 20000 # quick smoke run

Data set: N visitors, 5N visits (97 % with a card) spread over six months plus
``--extra-days`` expired days, a ban register of N salted identity digests (a table of
this benchmark, ``bench_registry``: the RIAJ replica has its own owner), 2,000 internal
bans. It is built once on plain SQLite (executemany, big transactions, indexes rebuilt
after the load), exported to SQLCipher with ``sqlcipher_export``, and cached under
``--cache-dir`` keyed by size; every run works on fresh copies. The data is synthetic
and the bench key is a constant: never point this script at a real visitor file.

Prints ONE markdown table: p50/p95 per operation, SQLCipher and plain, and the ratio.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from admission.identity import IdentityKey, IdKind
from admission.records import AdmissionEntry, NewCard, RegistryCheck
from db import names
from db.keys import DbKey
from db.migrate import migrate
from db.store import SqlCipherStore
from tests.db.plain_store import open_plain

BENCH_KEY = DbKey.from_raw(bytes.fromhex("42" * 32), source="bench")
SALT = b"bench-registry-salt"
DAYS = 182
END = datetime(2026, 11, 29, 0, 0, tzinfo=UTC)  # "now" of the data set
LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_SURNAMES = (
    "García González Rodríguez Fernández López Martínez Sánchez Pérez Gómez Martín Jiménez "
    "Ruiz Hernández Díaz Moreno Muñoz Álvarez Romero Alonso Gutiérrez Navarro Torres "
    "Domínguez Vázquez Ramos Gil Ramírez Serrano Blanco Molina Morales Suárez Ortega "
    "Delgado Castro Ortiz Rubio Marín Sanz Núñez Iglesias Medina Garrido Cortés Castillo "
    "Santos Lozano Guerrero Cano Prieto Méndez Cruz Calvo Gallego Vidal León Márquez "
    "Herrera Peña Flores Cabrera Campos Vega Fuentes Carrasco Diez Caballero Reyes Nieto "
    "Aguilar Pascual Santana Herrero Lorenzo Montero Hidalgo Giménez Ibáñez Ferrer Durán "
    "Santiago Benítez Mora Vicente Vargas Arias Carmona Crespo Román Pastor Soto Sáez "
    "Velasco Moya Soler Parra Esteban Bravo Gallardo Rojas Smith Müller Rossi Dubois "
    "Nowak Kowalski Ivanov Chen Wang Silva Santos Costa Öztürk O'Brien"
)
_GIVEN = (
    "María José Antonio Manuel Francisco Carmen David Juan Javier Ana Daniel Laura Carlos "
    "Isabel Jesús Alejandro Miguel Pilar Rafael Pedro Lucía Pablo Elena Ángel Sergio "
    "Fernando Dolores Jorge Luis Cristina Alberto Marta Álvaro Adrián Sara Raquel Diego "
    "Rosa Paula Mercedes Iñigo Ramón Enrique Andrea Beatriz Julia Teresa Víctor Sofía "
    "Nuria Rocío Irene Óscar Emilio Jaime Ignacio Agustín Inés Ainhoa Begoña"
)
SURNAMES = _SURNAMES.split()
GIVEN = _GIVEN.split()
DATA_VERSION = 2  # in the cache key: 2 = with observations
# Observations (art. 20.3) as a door keeper writes them: one per 20 visitors.
_OBS_OPENING = (
    "Discusión con el crupier en la mesa {n} de ruleta",
    "Comportamiento agresivo tras perder en blackjack, mesa {n}",
    "Solicita información sobre la autoexclusión voluntaria",
    "Intenta acceder con un documento caducado; se le pide otro",
    "Acompañado de un menor en el vestíbulo; se le recuerda la prohibición",
    "Se niega a mostrar el documento original al personal de sala",
    "Apuestas muy elevadas en la sala privada {n}",
    "Queja por el trato recibido en la caja número {n}",
    "Visitante habitual, sin incidencias en la mesa de póquer {n}",
    "Sospecha de uso de dispositivo electrónico en la mesa {n}",
    "Se le invita a abandonar la sala de máquinas por estado de embriaguez",
    "Reclamación por el premio de la máquina {n}; se avisa al director de juego",
    "Pide hablar con el director de juego por una apuesta anulada",
    "Objeto olvidado entregado en recepción (cartera marrón)",
    "Tarjeta de entrada deteriorada; reimpresión solicitada",
)
_OBS_CLOSING = (
    "",
    " Se informa al director de juego.",
    " Avisado el servicio de seguridad.",
    " Sin más incidencias.",
    " Se levanta acta (art. 20.3).",
    " Testigos: personal de mesa y de sala.",
    " El cliente se muestra colaborador.",
    " Se le entrega copia de la hoja de reclamaciones.",
)


@dataclass
class Result:
    name: str
    target_ms: float | None
    samples: dict[str, list[float]]  # variant → seconds


def dni(i: int) -> IdentityKey:
    return IdentityKey(IdKind.DNI, "ESP", f"{i:08d}{LETTERS[i % 23]}")


def zipf_choice(rng: np.random.Generator, items: list[str], size: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, len(items) + 1) ** 0.9
    return rng.choice(len(items), size=size, p=weights / weights.sum())


def registry_digest(identity: IdentityKey) -> bytes:
    return hashlib.sha256(SALT + identity.text.encode()).digest()[:16]


def stamp(seconds: int) -> str:
    return (datetime.fromtimestamp(seconds, UTC)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


# -- data set ---------------------------------------------------------------------------


def build_plain(path: Path, visitors: int, extra_days: int, seed: int = 7) -> None:
    rng = np.random.default_rng(seed)
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -524288")
    conn.execute("CREATE TABLE bench_registry (digest BLOB PRIMARY KEY) WITHOUT ROWID")
    indexes = [
        r[0]
        for r in conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
    ]
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall():
        conn.execute(f"DROP INDEX {name}")
    days = DAYS + extra_days
    start = int((END - timedelta(days=days)).timestamp())
    n_visits = 5 * visitors
    # Every visitor once, the rest at random; 16:00-21:59 UTC keeps the Madrid date.
    who = np.concatenate(
        [np.arange(1, visitors + 1), rng.integers(1, visitors + 1, n_visits - visitors)]
    )
    when = (
        start
        + rng.integers(0, days, n_visits) * 86400
        + 16 * 3600
        + rng.integers(0, 6 * 3600, n_visits)
    )
    order = np.argsort(when, kind="stable")
    who, when = who[order], when[order]
    carded = rng.random(n_visits) < 0.97
    sur1 = zipf_choice(rng, SURNAMES, visitors + 1)
    sur2 = zipf_choice(rng, SURNAMES, visitors + 1)
    giv1 = zipf_choice(rng, GIVEN, visitors + 1)
    giv2 = np.where(rng.random(visitors + 1) < 0.4, zipf_choice(rng, GIVEN, visitors + 1), -1)
    conn.execute("BEGIN")

    def visitor_rows() -> Iterator[tuple[object, ...]]:
        for i in range(1, visitors + 1):
            surname = f"{SURNAMES[sur1[i]]} {SURNAMES[sur2[i]]}"
            given = GIVEN[giv1[i]] + ("" if giv2[i] < 0 else f" {GIVEN[giv2[i]]}")
            yield (
                i,
                dni(i).text,
                surname,
                given,
                names.search_name(surname, given),
                "1980-01-01",
                "ESP",
            )

    conn.executemany("INSERT INTO visitors VALUES (?, ?, ?, ?, ?, ?, ?)", visitor_rows())
    conn.executemany(
        "INSERT INTO visitor_tokens (token, search_name, file_number) VALUES (?, ?, ?)",
        (
            (w, search, fn)
            for fn, s, g, search in conn.execute(
                "SELECT file_number, surname, given_names, search_name FROM visitors"
            ).fetchall()
            for w in names.words(s, g)
        ),
    )

    def visit_rows() -> Iterator[tuple[object, ...]]:
        for v in range(n_visits):
            yield (
                v + 1,
                int(who[v]),
                stamp(int(when[v])),
                f"desk-{v % 3}",
                "op-1",
                "ADMIT" if carded[v] else "DENY",
                "[]" if carded[v] else '["RIAJ_LISTED"]',
                "DNI",
                f"CAA{v:07d}",
                "NOT_LISTED",
                "REPLICA",
                "2026-11-28.1",
                3600,
                "",
            )

    conn.executemany(
        "INSERT INTO visits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", visit_rows()
    )

    def card_rows() -> Iterator[tuple[object, ...]]:
        for number, v in enumerate(np.flatnonzero(carded), start=1):
            at = stamp(int(when[v]))
            yield (
                number,
                int(who[v]),
                int(v) + 1,
                "STANDARD",
                500,
                at,
                at[:10],
                at[:10],
                "PRINTED",
                0,
                0,
                "",
                1,
                "",
            )

    conn.executemany(
        "INSERT INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", card_rows()
    )
    conn.execute("UPDATE counters SET next = (SELECT count(*) + 1 FROM cards) WHERE name = 'card'")
    n_obs = visitors // 20
    obs_visit = rng.integers(0, n_visits, n_obs)
    obs_open = rng.integers(0, len(_OBS_OPENING), n_obs)
    obs_close = rng.integers(0, len(_OBS_CLOSING), n_obs)
    obs_n = rng.integers(1, 40, n_obs)
    conn.executemany(
        "INSERT INTO observations (file_number, at, author, text) VALUES (?, ?, ?, ?)",
        (
            (
                int(who[obs_visit[k]]),
                stamp(int(when[obs_visit[k]]) + 600),
                f"op-{k % 7}",
                _OBS_OPENING[obs_open[k]].format(n=int(obs_n[k]))
                + "."
                + _OBS_CLOSING[obs_close[k]],
            )
            for k in np.argsort(obs_visit, kind="stable")
        ),
    )
    listed = rng.choice(visitors * 10, size=visitors, replace=False) + 1  # ~10 % are visitors
    conn.executemany(
        "INSERT INTO bench_registry VALUES (?)",
        ((d,) for d in sorted(registry_digest(dni(int(i))) for i in listed)),
    )
    conn.executemany(
        "INSERT INTO bans (identity, reason, decided_by, created_at) VALUES (?, ?, ?, ?)",
        (
            (dni(int(i)).text, "behaviour", "director-1", stamp(start))
            for i in rng.integers(1, visitors + 1, 2000)
        ),
    )
    for sql in indexes:
        conn.execute(sql)
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()


def export_encrypted(plain: Path, encrypted: Path) -> None:
    """Same pages' content, encrypted: SQLCipher's own ``sqlcipher_export``."""
    import sqlcipher3

    conn = sqlcipher3.connect(str(plain), isolation_level=None)
    conn.execute(f"ATTACH DATABASE '{encrypted}' AS enc KEY {BENCH_KEY.pragma_value()}")
    conn.execute("SELECT sqlcipher_export('enc')")
    version = conn.execute("PRAGMA main.user_version").fetchone()[0]
    conn.execute(f"PRAGMA enc.user_version = {version}")
    conn.execute("DETACH DATABASE enc")
    conn.close()


def cached_files(cache: Path, visitors: int, extra_days: int) -> tuple[Path, Path]:
    """The cached (plain, encrypted) pair for this size and schema, built once. Other
    benchmarks reuse it: a lock file serialises builders, temp names are per process."""
    import fcntl

    cache.mkdir(parents=True, exist_ok=True)
    tag = f"v{visitors}-d{DAYS + extra_days}-s{schema_tag()}-x{DATA_VERSION}"
    plain, enc = cache / f"plain-{tag}.db", cache / f"enc-{tag}.db"
    with (cache / f".build-{tag}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if plain.exists() and enc.exists():
            return plain, enc
        tmp_plain = cache / f"plain-{tag}.{os.getpid()}.tmp"
        tmp_enc = cache / f"enc-{tag}.{os.getpid()}.tmp"
        try:
            t = time.perf_counter()
            build_plain(tmp_plain, visitors, extra_days)
            print(f"built plain data set in {time.perf_counter() - t:.0f} s", file=sys.stderr)
            t = time.perf_counter()
            export_encrypted(tmp_plain, tmp_enc)
            print(f"exported to SQLCipher in {time.perf_counter() - t:.0f} s", file=sys.stderr)
            tmp_plain.rename(plain)
            tmp_enc.rename(enc)
        finally:
            tmp_plain.unlink(missing_ok=True)
            tmp_enc.unlink(missing_ok=True)
    return plain, enc


def schema_tag() -> str:
    from db.migrate import available

    return hashlib.sha256("".join(m.sha256 for m in available()).encode()).hexdigest()[:8]


# -- workload ---------------------------------------------------------------------------


def timed(samples: list[float], fn: Callable[[], object]) -> None:
    t = time.perf_counter()
    fn()
    samples.append(time.perf_counter() - t)


def search_queries(rng: random.Random, count: int) -> list[str]:
    queries = []
    for _ in range(count):
        s1, s2, g = rng.choice(SURNAMES), rng.choice(SURNAMES), rng.choice(GIVEN)
        kind = rng.randrange(4)
        if kind == 0:
            queries.append(s1.lower()[: rng.randint(3, len(s1))])
        elif kind == 1:
            queries.append(f"{s1} {s2}")
        elif kind == 2:
            queries.append(f"{names.fold(s1).lower()} {g[:3]}")
        else:
            queries.append(f"{g} {s1[:4]} {s2[:4]}")
    return queries


Results = dict[str, dict[str, list[float]]]


def run(
    stores: dict[str, SqlCipherStore],
    visitors: int,
    extra_days: int,
    results: Results,
    seed: int = 11,
) -> None:
    """Every sample runs on both variants back to back (order alternating), so drifting
    load from other processes on the machine hits both sides of the ratio alike."""
    rng = random.Random(seed)
    turn = [0]
    probe = "SELECT 1 FROM bench_registry WHERE digest = ?"

    def both(name: str, fn: Callable[[SqlCipherStore, str], object]) -> None:
        turn[0] += 1
        order = list(stores.items()) if turn[0] % 2 else list(stores.items())[::-1]
        for variant, store in order:
            timed(
                results.setdefault(name, {}).setdefault(variant, []),
                lambda s=store, v=variant: fn(s, v),
            )

    def probe_registry(store: SqlCipherStore, digest: bytes) -> None:
        with store.lock:
            store.connection.execute(probe, (digest,)).fetchone()

    for _ in range(200):  # warm up like a desk that has been open a while
        ident = dni(rng.randint(1, visitors))
        for store in stores.values():
            store.find_visitor(ident)
    for _ in range(2000):
        ident = dni(rng.randint(1, visitors))
        both("lookup by identity (find_visitor)", lambda s, _v, i=ident: s.find_visitor(i))
    for _ in range(2000):
        digest = registry_digest(dni(rng.randint(1, visitors * 10)))
        both(
            f"ban register probe ({visitors:,} digests)",
            lambda s, _v, d=digest: probe_registry(s, d),
        )
    for query in search_queries(random.Random(seed + 1), 100):  # warm the page cache
        for store in stores.values():
            store.search_visitors(query)
    for query in search_queries(rng, 300):
        both(
            "name search, accent-insensitive (≤50 hits)",
            lambda s, _v, q=query: s.search_visitors(q),
        )
    at = END
    for k in range(300):
        at += timedelta(seconds=7)
        i = rng.randint(1, visitors) if k % 3 else visitors + 1 + k  # 1/3 new visitors
        day = at.date()
        entry = AdmissionEntry(
            dni(i),
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

        def admit(store: SqlCipherStore, variant: str, e: AdmissionEntry = entry) -> None:
            probe_registry(store, registry_digest(e.identity))
            store.active_bans(e.identity, e.at)
            store.staff_member(e.identity)
            store.find_visitor(e.identity)
            t = time.perf_counter()
            store.record_admission(e)
            results.setdefault("record_admission + card number (1 txn, fsync)", {}).setdefault(
                variant, []
            ).append(time.perf_counter() - t)

        both("admission: checks + record + card number", admit)
    first_day = END - timedelta(days=DAYS + extra_days)
    for k in range(1, extra_days + 1):
        cutoff = first_day + timedelta(days=k)
        both("purge one expired day (~5N/187 visits)", lambda s, _v, c=cutoff: s.purge(c))

    def reopen(store: SqlCipherStore, variant: str) -> None:
        assert store.path is not None
        if variant == "sqlcipher":
            SqlCipherStore.open(store.path, BENCH_KEY, create=False).close()
        else:
            open_plain(store.path).close()

    for _ in range(3):
        both("open (raw key) + first read", reopen)


def pct(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


TARGETS = {
    "lookup by identity (find_visitor)": "< 2 ms",
    "name search, accent-insensitive (≤50 hits)": "< 50 ms",
    "admission: checks + record + card number": "p95 < 20 ms",
    "purge one expired day (~5N/187 visits)": "< 2 s",
}


def table(results: Results, visitors: int) -> str:
    lines = [
        f"Visitor file benchmark: {visitors:,} visitors, {5 * visitors:,} visits, "
        f"{visitors:,}-identity ban register; SQLCipher {sqlcipher_version()}, "
        f"plain = stdlib sqlite3 {sqlite3.sqlite_version}; {os.cpu_count()} CPUs",
        "",
        "| operation | n | SQLCipher p50 | SQLCipher p95 | plain p50 | plain p95 "
        "| ratio p50 | target |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, by in results.items():
        enc, plain = by.get("sqlcipher", []), by.get("plain", [])
        if not enc or not plain:
            continue
        e50, e95, p50, p95 = pct(enc, 50), pct(enc, 95), pct(plain, 50), pct(plain, 95)
        lines.append(
            f"| {name} | {len(enc)} | {ms(e50)} | {ms(e95)} | {ms(p50)} | {ms(p95)} "
            f"| {e50 / p50:.2f} | {TARGETS.get(name, '')} |"
        )
    return "\n".join(lines)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def sqlcipher_version() -> str:
    import sqlcipher3

    conn = sqlcipher3.connect(":memory:")
    version = conn.execute("PRAGMA cipher_version").fetchone()[0]
    sqlite = conn.execute("SELECT sqlite_version()").fetchone()[0]
    return f"{version} (SQLite {sqlite})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--visitors", type=int, default=1_000_000)
    parser.add_argument(
        "--extra-days",
        type=int,
        default=5,
        help="expired days before the six months (one purge sample each)",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/admission-bench"))
    args = parser.parse_args()
    plain_cache, enc_cache = cached_files(args.cache_dir, args.visitors, args.extra_days)
    results: Results = {}
    work = args.cache_dir / f"work-{os.getpid()}"
    work.mkdir()
    try:
        enc_work, plain_work = work / enc_cache.name, work / plain_cache.name
        shutil.copyfile(enc_cache, enc_work)
        shutil.copyfile(plain_cache, plain_work)
        with (
            SqlCipherStore.open(enc_work, BENCH_KEY, create=False) as enc,
            open_plain(plain_work) as plain,
        ):
            run({"sqlcipher": enc, "plain": plain}, args.visitors, args.extra_days, results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table(results, args.visitors))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
