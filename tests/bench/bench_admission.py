"""The whole admission decision on a full-size file, end to end.

    .venv/bin/python tests/bench/bench_admission.py                  # 1,000,000 visitors
    .venv/bin/python tests/bench/bench_admission.py --visitors 20000 # quick run

Unlike ``bench_store.py`` (which times the store's own operations), this times what
the desk does for one visitor with the real code: MRZ text -> ``parse_mrz`` ->
``document_from_mrz`` -> ``AdmissionDesk.admit`` (RIAJ check on the real replica of
1,000,000 identifiers through the registry policy, internal bans, staff, verdict,
then visitor + visit + gapless card number in one transaction). The six-month file
(N visitors, 5N visits) is the store benchmark's cached data set. Prints one table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import BENCH_KEY, END, cached_files, dni  # type: ignore[import-not-found]

from admission.cards.catalogue import DEFAULT_CARD_TYPES, CardCatalogue
from admission.clock import FixedClock
from admission.desk import AdmissionDesk, DeskConfig
from admission.documents import document_from_mrz
from admission.generators.mrz_build import build_td1
from admission.mrz.parse import parse_mrz
from admission.registry.policy import RegistryPolicy
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore
from tests.db.plain_store import open_plain

ADMISSIONS = 400


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def mrz_for(i: int, today: date) -> list[str]:
    number = dni(i).number
    return build_td1(
        document_code="ID",
        issuer="ESP",
        document_number=f"BAA{i % 1000000:06d}",
        optional_data_1=number,
        birth_date="800101",
        expiry_date="301231",
        nationality="ESP",
        sex="F",
        surname="NUÑEZ GARCÍA",
        given_names="ANA",
    )


def run(store: SqlCipherStore, visitors: int, label: str) -> dict[str, list[float]]:
    clock = FixedClock(END + timedelta(hours=21))
    replica = ReplicaRegistry(store, clock)
    # The ban list: 1,000,000 identities (every 7th visitor of the file is listed).
    listed = (
        f"{dni(i * 7 if i * 7 <= visitors else visitors + i).number}\n".encode()
        for i in range(1, visitors + 1)
    )
    t = time.perf_counter()
    replica.import_lines(listed)
    imported = time.perf_counter() - t
    desk = AdmissionDesk(
        store=store,
        registry=RegistryPolicy(clock, replica=replica),
        clock=clock,
        config=DeskConfig("CAS01", "DESK1", CardCatalogue.from_config(DEFAULT_CARD_TYPES, "DAY")),
    )
    today = END.date()
    samples: dict[str, list[float]] = {"import": [imported]}

    def timed(name: str, fn: Callable[[], object]) -> object:
        t = time.perf_counter()
        out = fn()
        samples.setdefault(name, []).append(time.perf_counter() - t)
        return out

    for k in range(ADMISSIONS):
        clock.advance(timedelta(seconds=9))
        i = (k * 7919) % visitors + 1 if k % 4 else visitors + 10 + k  # 1/4 first visits
        lines = mrz_for(i, today)
        t = time.perf_counter()
        result = parse_mrz(lines, today=today)
        doc = document_from_mrz(result)
        samples.setdefault("read: parse_mrz + document", []).append(time.perf_counter() - t)
        out = timed(
            "admission decision + card number (desk.admit)",
            lambda d=doc: desk.admit(d, operator="bench"),
        )
        total = time.perf_counter() - t
        samples.setdefault("MRZ text -> verdict -> numbered card", []).append(total)
        assert out.verdict.outcome.value in ("ADMIT", "DENY")  # type: ignore[attr-defined]
    for _ in range(1000):
        ident = dni((_ * 104729) % visitors + 1)
        timed("RIAJ check (policy -> replica)", lambda x=ident: desk._registry.check(x))
    print(f"[{label}] done", file=sys.stderr)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--visitors", type=int, default=1_000_000)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/admission-bench"))
    args = parser.parse_args()
    plain_cache, enc_cache = cached_files(args.cache_dir, args.visitors, 5)
    work = args.cache_dir / f"admit-{os.getpid()}"
    work.mkdir()
    results = {}
    try:
        for label, cache in (("sqlcipher", enc_cache), ("plain", plain_cache)):
            copy = work / cache.name
            shutil.copyfile(cache, copy)
            opener = (
                (lambda p: SqlCipherStore.open(p, BENCH_KEY, create=False))
                if (label == "sqlcipher")
                else open_plain
            )
            with opener(copy) as store:
                results[label] = run(store, args.visitors, label)
            copy.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    enc, plain = results["sqlcipher"], results["plain"]
    print(
        f"Admission decision, end to end: {args.visitors:,} visitors, {5 * args.visitors:,} "
        f"visits, RIAJ replica of {args.visitors:,} identities; {os.cpu_count()} CPUs\n"
    )
    print(
        "| step | n | SQLCipher p50 | SQLCipher p95 | plain p50 | plain p95 | ratio p95 | target |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    targets = {"admission decision + card number (desk.admit)": "p95 < 20 ms"}
    for name in [n for n in enc if n != "import"]:
        e, p = enc[name], plain[name]
        print(
            f"| {name} | {len(e)} | {pct(e, 50):.2f} ms | {pct(e, 95):.2f} ms | "
            f"{pct(p, 50):.2f} ms | {pct(p, 95):.2f} ms | {pct(e, 95) / pct(p, 95):.2f} | "
            f"{targets.get(name, '')} |"
        )
    print(
        f"| import of the {args.visitors:,}-identity replica | 1 | {enc['import'][0]:.1f} s | "
        f"| {plain['import'][0]:.1f} s | | {enc['import'][0] / plain['import'][0]:.2f} | |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
