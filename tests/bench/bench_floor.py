"""Floor service benchmark (art. 22.4): how many card checks one desk's service answers.

Run: ``nice .venv/bin/python tests/bench/bench_floor.py [--cards 3000] [--checks 2000]``.

On a real SQLCipher file (WAL, synchronous=FULL) holding ``--cards`` admitted visitors
with one-day cards, the floor service (ui/floor) serves HTTPS on loopback with its own
casino CA. In the same run:

* the peer: the same check called in-process (``FloorService.check``: verify_card, the
  audit entry committed, the answer built) with no HTTP, one caller - what the check
  itself costs;
* ``GET /api/cards/{code}`` over HTTPS with keep-alive from one client, then from 20
  concurrent clients (a separate process of aiohttp clients, one connection each, as 20
  phones would), signed codes (ADM2) of random cards of the file: checks per second,
  p50 and p95 latency. The difference from the peer is what HTTP, TLS and the thread
  hand-off cost.

Every check is recorded in the audit chain (one committed entry each), as in service.
Prints one markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from admission.accounts import AccountService, Operator, Role  # noqa: E402
from admission.clock import FixedClock  # noqa: E402
from db import card_keys  # noqa: E402
from db.accounts import Argon2Hasher, StoreAccountBook  # noqa: E402
from db.keys import DbKey  # noqa: E402
from db.store import SqlCipherStore  # noqa: E402
from tests.db.factories import T0, entry  # noqa: E402
from ui.floor.certs import made_certificate  # noqa: E402
from ui.floor.http import FloorServer  # noqa: E402
from ui.floor.limits import Rate  # noqa: E402
from ui.floor.service import FloorService, Principal  # noqa: E402

CASINO = "CAS1"
PIN = "4821"
UNLIMITED = Rate(1e9, 10**9)  # the bench measures the service, not its rate limits
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def seed(store: SqlCipherStore, clock: FixedClock, cards: int) -> tuple[AccountService, list[str]]:
    """``cards`` admissions with one-day cards, a floor account with a PIN; the ADM2
    codes of the cards."""
    accounts = AccountService(StoreAccountBook(store), Argon2Hasher(**CHEAP), clock)
    admin = accounts.create_account("jefa", "Jefa", "admin-pass-1", [Role.ADMIN], actor=None)
    accounts.create_account("sala1", "Sala", "floor-pass-1", [Role.FLOOR], actor=admin.operator())
    accounts.set_pin(Operator("sala1", "Sala", frozenset({Role.FLOOR})), "floor-pass-1", PIN)
    codes = []
    for n in range(1, cards + 1):
        number = store.record_admission(entry(n)).card_number
        card = None if number is None else store.card(number)
        assert card is not None
        codes.append(card_keys.signed_card_code(store, CASINO, card))
    return accounts, codes


async def _clients(
    port: int, ca: str, cookie: str, codes: list[str], checks: int, width: int
) -> list[float]:
    import aiohttp

    context = ssl.create_default_context(cafile=ca)
    latencies: list[float] = []
    per_client = max(1, checks // width)

    async def phone(k: int) -> None:
        rng = random.Random(k)
        connector = aiohttp.TCPConnector(ssl=context, limit=1)  # one keep-alive connection
        async with aiohttp.ClientSession(connector=connector, headers={"Cookie": cookie}) as s:
            for _ in range(per_client):
                code = rng.choice(codes)
                started = time.perf_counter()
                async with s.get(f"https://127.0.0.1:{port}/api/cards/{code}?place=Mesa") as r:
                    body = await r.json()
                    assert r.status == 200 and body["answer"] == "VALID", body
                latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(phone(k) for k in range(width)))
    return latencies


def client(args: list[str]) -> int:
    """The child process: ``width`` phones over one keep-alive connection each."""
    port, ca, cookie, codes_file, checks, width = args
    codes = json.loads(Path(codes_file).read_text())
    started = time.perf_counter()
    latencies = asyncio.run(_clients(int(port), ca, cookie, codes, int(checks), int(width)))
    wall = time.perf_counter() - started
    print(json.dumps({"wall": wall, "latencies": latencies}))
    return 0


def over_https(
    port: int, ca: Path, cookie: str, codes_file: Path, checks: int, width: int
) -> dict[str, float]:
    argv = [sys.executable, __file__, "--client", str(port), str(ca), cookie, str(codes_file),
            str(checks), str(width)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=1800)
    out = json.loads(done.stdout)
    lat = out["latencies"]
    return {
        "n": len(lat),
        "rate": len(lat) / out["wall"],
        "p50": statistics.median(lat),
        "p95": pct(lat, 0.95),
    }


def in_process(service: FloorService, codes: list[str], checks: int) -> dict[str, float]:
    who = Principal("sala1", "floor", False, "bench")
    rng = random.Random(7)
    latencies = []
    started = time.perf_counter()
    for _ in range(checks):
        t = time.perf_counter()
        reply = service.check(who, rng.choice(codes), "Mesa")
        latencies.append(time.perf_counter() - t)
        assert reply.body["answer"] == "VALID"
    wall = time.perf_counter() - started
    return {
        "n": checks,
        "rate": checks / wall,
        "p50": statistics.median(latencies),
        "p95": pct(latencies, 0.95),
    }


def run(cards: int, checks: int, width: int) -> list[tuple[str, str, str, str, str]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        folder = Path(tmp)
        clock = FixedClock(T0)
        store = SqlCipherStore.open(
            folder / "visitors.db", DbKey.generate(source="bench"), clock=clock
        )
        try:
            accounts, codes = seed(store, clock, cards)
            clock.set(T0 + timedelta(hours=1))
            service = FloorService(store, accounts, clock, CASINO, check_rate=UNLIMITED)
            codes_file = folder / "codes.json"
            codes_file.write_text(json.dumps(codes))
            peer = in_process(service, codes, checks)
            tls = made_certificate(folder, "127.0.0.1")
            with FloorServer(service, tls, "127.0.0.1", 0) as server:
                reply = service.sign_in("bench", {"username": "sala1", "pin": PIN})
                cookie = f"floor_session={reply.cookie}"
                ca = folder / "floor-tls" / "ca.crt"
                one = over_https(server.port, ca, cookie, codes_file, max(50, checks // 4), 1)
                many = over_https(server.port, ca, cookie, codes_file, checks, width)
        finally:
            store.close()
    for name, got in (
        ("in-process check (peer: no HTTP), 1 caller", peer),
        ("HTTPS GET /api/cards, 1 client, keep-alive", one),
        (f"HTTPS GET /api/cards, {width} concurrent clients, keep-alive", many),
    ):
        rows.append(
            (name, str(int(got["n"])), f"{got['rate']:.0f}", ms(got["p50"]), ms(got["p95"]))
        )
    rows.append(
        (
            "HTTP + TLS + hand-off per check (p50, 1 client - peer)",
            "",
            "",
            ms(one["p50"] - peer["p50"]),
            "",
        )
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=3000)
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--client", nargs=6)
    args = parser.parse_args(argv)
    if args.client:
        return client(args.client)
    rows = run(args.cards, args.checks, args.clients)
    print(f"Floor service on loopback: {args.cards} cards in a SQLCipher file, "
          f"{os.cpu_count()} CPUs, every check audited (one committed entry)\n")  # fmt: skip
    print("| measure | checks | checks/s | p50 | p95 |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
