"""The floor phone page in a real browser (Debian's headless chromium, 390 x 844): its
cold load and its offline verification of card codes (art. 22.4: a card checked at a
table when the LAN is down).

    python tests/bench/bench_floor_page.py [--loads 5] [--codes 500]

1. Cold load: each run a new browser with a new profile (no HTTP cache, no service
   worker), HTTPS on loopback from the desk's real floor service (ui/floor's
   FloorServer over a SQLCipher file, tests/floor/browser.RealFloor). Timed from the
   Navigation Timing API's start to the ``floor-interactive`` mark (the sign-in form has
   its handlers and its texts), to DOMContentLoaded and to the load event; and the wall
   clock from the driver's request to the page saying it is ready.
2. Offline verification: ``performance.now()`` around the page's own local check
   (ADM2 decode, WebCrypto Ed25519 signature, casino, validity in Europe/Madrid, the
   signed void list verified again) of N distinct codes signed here with a key of the
   same format, one after another, as a phone does them; the first check apart.

Prints ONE markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from tests.floor.browser import (  # noqa: E402
    MADRID,
    Session,
    adm2_code,
    adm2_payload,
    b64url,
    chrome,
    key_id_of,
    madrid_today,
    raw_public,
)
from tests.floor.real_floor import RealFloor  # noqa: E402

TARGET_LOAD_MS = 1000  # a phone on the casino's Wi-Fi: the form before a second has passed
TARGET_VERIFY_MS = 20  # per card: no waiting at the table


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cold_loads(floor: RealFloor, runs: int, folder: Path) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"interactive": [], "dcl": [], "load": [], "wall": []}
    for n in range(runs):
        # the driver returns at once and the page is polled: chromedriver's own wait for
        # a "complete" page sometimes adds seconds that are not the page's
        driver = chrome(folder / f"profile-{n}", floor.tls, page_load_strategy="none")
        try:
            session = Session(driver, floor.url)
            started = time.perf_counter()
            driver.get(floor.url + "/")
            session.wait_js(
                "return document.body && document.body.getAttribute('data-ready') === '1'"
            )
            out["wall"].append((time.perf_counter() - started) * 1000)
            session.wait_js("return performance.getEntriesByName('floor-interactive').length > 0")
            session.wait_js("return performance.getEntriesByType('navigation')[0].loadEventEnd > 0")
            timing = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "const m = performance.getEntriesByName('floor-interactive')[0];"
                "return [m.startTime, n.domContentLoadedEventEnd, n.loadEventEnd];"
            )
            out["interactive"].append(float(timing[0]))
            out["dcl"].append(float(timing[1]))
            out["load"].append(float(timing[2]))
        finally:
            driver.quit()
    return out


def offline_verification(floor: RealFloor, codes: int, folder: Path) -> tuple[float, list[float]]:
    """(the first check's ms, the others' ms each)."""
    today = madrid_today()
    key = Ed25519PrivateKey.generate()
    texts = [
        adm2_code(
            key,
            adm2_payload(
                key,
                floor.casino,
                100_000 + n,
                "GENERAL",
                today - timedelta(days=3),
                today + timedelta(days=360),
            ),
        )
        for n in range(codes + 1)
    ]
    voided = list(range(100_000, 100_000 + codes, 7))  # every 7th card voided
    body = json.dumps(
        {
            "format": "adm-voids-1",
            "casino_id": floor.casino,
            "issued_at": datetime.now(MADRID).isoformat(),
            "voided": voided,
        }
    )
    keys = {
        "casino_id": floor.casino,
        "keys": [{"key_id": key_id_of(raw_public(key)), "public_key": b64url(raw_public(key))}],
    }
    voids = {
        "body": body,
        "key_id": key_id_of(raw_public(key)),
        "signature": b64url(key.sign(body.encode())),
    }
    driver = chrome(folder / "profile-verify", floor.tls)
    try:
        session = Session(driver, floor.url)
        session.open()
        driver.set_script_timeout(300)
        result = driver.execute_async_script(
            """const [texts, keys, voids, done] = arguments;
            (async () => {
              const times = [], answers = {};
              for (const text of texts) {
                const t0 = performance.now();
                const a = await window.floor.verifyOffline(text, keys, voids, new Date());
                times.push(performance.now() - t0);
                answers[a.answer] = (answers[a.answer] || 0) + 1;
              }
              return {times, answers};
            })().then(done, (e) => done({error: String(e)}));""",
            texts,
            keys,
            voids,
        )
    finally:
        driver.quit()
    if "error" in result:
        raise RuntimeError(result["error"])
    expected_void = len(voided)
    if result["answers"].get("VOID") != expected_void or sum(result["answers"].values()) != len(
        texts
    ):
        raise RuntimeError(f"unexpected answers {result['answers']}")
    times = [float(t) for t in result["times"]]
    return times[0], times[1:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="cold loads, each a new browser")
    parser.add_argument("--codes", type=int, default=500, help="codes verified offline")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-floor-page-") as tmp:
        folder = Path(tmp)
        floor = RealFloor(folder)
        try:
            floor.start()
            loads = cold_loads(floor, args.loads, folder)
            first, each = offline_verification(floor, args.codes, folder)
        finally:
            floor.close()
    rows = [
        (
            "cold load: start -> sign-in form interactive (Navigation Timing)",
            loads["interactive"],
            TARGET_LOAD_MS,
        ),
        ("cold load: start -> DOMContentLoaded", loads["dcl"], None),
        ("cold load: start -> load event", loads["load"], None),
        (
            "cold load: wall clock, request -> page ready (polled every 50 ms)",
            loads["wall"],
            TARGET_LOAD_MS,
        ),
        (f"offline verification, per code ({len(each)} codes)", each, TARGET_VERIFY_MS),
        ("offline verification, first code (keys imported)", [first], None),
    ]
    print(
        "Floor phone page, headless chromium 390x844, HTTPS on loopback"
        f" ({args.loads} cold loads)\n"
    )
    print("| measure | n | p50 ms | p95 ms | max ms | target |")
    print("|---|---|---|---|---|---|")
    for name, values, target in rows:
        p95 = percentile(values, 0.95)
        verdict = (
            "-" if target is None else (f"< {target} ms " + ("ok" if p95 < target else "MISSED"))
        )
        print(
            f"| {name} | {len(values)} | {statistics.median(values):.1f} | {p95:.1f}"
            f" | {max(values):.1f} | {verdict} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
