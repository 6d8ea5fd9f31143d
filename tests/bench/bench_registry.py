"""RIAJ register benchmark (art. 20.2, R1).

Run: ``nice .venv/bin/python tests/bench/bench_registry.py``.

Measures, on the real encrypted store (SqlCipherStore: WAL, synchronous=FULL,
secure_delete):

* import of a 1,000,000-identifier signed snapshot (sha256-salted-v1), parse +
  checksum + Ed25519 signature + atomic swap (target < 15 s);
* the swap of a second 1,000,000 snapshot over the first (old rows securely erased);
* import of the simplest format (plain list of 1,000,000 DNIs in clear);
* a replica check through the policy, p50 / p95 / p99 over 20,000 checks
  (half listed, half not) (target p95 < 0.2 ms);
* RSS of this process with the replica loaded, and its peak (VmHWM);
* an online round trip against the reference register over TLS on loopback
  (fresh TLS connection per check, as the client does), p50 / p95 over 200 checks.

Prints one markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from admission.clock import FixedClock  # noqa: E402
from admission.identity import IdentityKey, IdKind  # noqa: E402
from admission.registry.policy import RegistryPolicy  # noqa: E402
from admission.registry.port import RegistryStatus  # noqa: E402
from admission.registry.snapshot import SCHEME_SHA256_SALTED, render_snapshot  # noqa: E402
from db.keys import DbKey  # noqa: E402
from db.registry_replica import ReplicaRegistry  # noqa: E402
from db.store import SqlCipherStore  # noqa: E402
from hardware.registry.signature import Ed25519Verifier  # noqa: E402
from hardware.registry.soap_client import (  # noqa: E402
    Credentials,
    RgiajSoapClient,
    SoapClientSettings,
)

LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def dni(n: int) -> str:
    return f"{n:08d}{LETTERS[n % 23]}"


def rss_mib() -> tuple[float, float]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def pct(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=1000)[int(q * 1000) - 1]


KEY = DbKey.from_raw(b"k" * 32)


def child(argv: list[str]) -> int:
    """Runs in a fresh process so RSS is the app's, not the generator's."""
    mode, db_path = argv[0], Path(argv[1])
    clock = FixedClock(T0 + timedelta(hours=2))
    store = SqlCipherStore.open(db_path, KEY, clock=clock)
    verifier = Ed25519Verifier.from_text(argv[3]) if len(argv) > 3 and argv[3] else None
    replica = ReplicaRegistry(store, clock, verifier=verifier)
    if mode == "import":
        start = time.perf_counter()
        replica.import_file(Path(argv[2]))
        print(f"{time.perf_counter() - start:.3f} {rss_mib()[1]:.0f}")
        return 0
    policy = RegistryPolicy(clock, replica=replica)
    keys = [IdentityKey(IdKind.DNI, "ESP", n) for n in Path(argv[2]).read_text().split()]
    samples: list[float] = []
    listed = 0
    for identity in keys:
        t = time.perf_counter()
        answer = policy.check(identity)
        samples.append((time.perf_counter() - t) * 1000)
        listed += answer.status is RegistryStatus.LISTED
    assert listed == len(keys) // 2, listed
    rss, hwm = rss_mib()
    print(
        f"{pct(samples, 0.5):.4f} {pct(samples, 0.95):.4f} {pct(samples, 0.99):.4f} "
        f"{rss:.0f} {hwm:.0f}"
    )
    return 0


def run_child(*args: str) -> list[float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True
    ).stdout
    return [float(x) for x in out.split()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--checks", type=int, default=20_000)
    parser.add_argument("--online", type=int, default=200)
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    rows: list[tuple[str, str, str]] = []
    rng = random.Random(5)
    size = args.size
    numbers = rng.sample(range(10_000_000, 99_999_999), 2 * size)
    first = [dni(n) for n in numbers[:size]]
    second = [dni(n) for n in numbers[size:]]
    key = Ed25519PrivateKey.generate()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        db = str(tmpdir / "visitors.db")
        snap1 = tmpdir / "riaj-1.txt"
        snap1.write_bytes(
            render_snapshot(
                first,
                version="v1",
                as_of=T0,
                salt=b"a" * 16,
                scheme=SCHEME_SHA256_SALTED,
                sign=key.sign,
            )
        )
        snap2 = tmpdir / "riaj-2.txt"
        snap2.write_bytes(
            render_snapshot(
                second, version="v2", as_of=T0 + timedelta(hours=1), salt=b"b" * 16, sign=key.sign
            )
        )
        plain = tmpdir / "riaj-plain.txt"
        plain.write_text("# plain list\n" + "\n".join(first) + "\n", encoding="utf-8")
        sample = tmpdir / "sample.txt"
        picks = rng.sample(second, args.checks // 2) + rng.sample(first, args.checks // 2)
        rng.shuffle(picks)
        sample.write_text("\n".join(picks))
        del numbers

        t_import, peak = run_child("import", db, str(snap1), public)
        rows.append(
            (
                f"import {size:,} ids: signed sha256-salted snapshot (parse, checksum, "
                "Ed25519, atomic swap)",
                f"{t_import:.2f} s (peak RSS {peak:.0f} MiB)",
                "< 15 s",
            )
        )
        t_swap, peak = run_child("import", db, str(snap2), public)
        rows.append(
            (
                f"swap a 2nd {size:,} snapshot over the 1st (old rows erased)",
                f"{t_swap:.2f} s (peak RSS {peak:.0f} MiB)",
                "< 15 s",
            )
        )
        db_size = sum(p.stat().st_size for p in tmpdir.glob("visitors.db*")) / 2**20
        rows.append(("encrypted file with the replica (db + wal)", f"{db_size:.0f} MiB", "-"))
        p50, p95, p99, rss, hwm = run_child("check", db, str(sample))
        rows.append(
            (
                f"replica check through the policy, {args.checks:,} checks "
                "(half listed): p50 / p95 / p99",
                f"{p50:.3f} / {p95:.3f} / {p99:.3f} ms",
                "p95 < 0.2 ms",
            )
        )
        rows.append(
            (
                f"RSS of a process with the store open and the {size:,} replica in use",
                f"{rss:.0f} MiB (peak {hwm:.0f} MiB)",
                "-",
            )
        )
        t_plain, peak = run_child("import", db, str(plain))
        rows.append(
            (
                f"import {size:,} ids: plain list in clear (one number per line)",
                f"{t_plain:.2f} s (peak RSS {peak:.0f} MiB)",
                "< 15 s",
            )
        )
    del first, second
    rows.append(online_round_trip(args.online))
    print("| measure | result | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    return 0


def online_round_trip(count: int) -> tuple[str, str, str]:
    from tests.registry.pki import make_pki
    from tests.registry.reference_server import ReferenceRegister

    clock = FixedClock(T0)
    with tempfile.TemporaryDirectory() as tmp:
        pki = make_pki(Path(tmp))
        with ReferenceRegister(
            clock.now, cert=str(pki.server_cert), key=str(pki.server_key), client_ca=str(pki.ca)
        ) as register:
            register.state.listed.add("12345678Z")
            client = RgiajSoapClient(
                SoapClientSettings(
                    register.url,
                    ca_file=str(pki.ca),
                    client_cert=str(pki.client_cert),
                    client_key=str(pki.client_key),
                ),
                clock,
                Credentials(key_passphrase=pki.client_key_passphrase),
            )
            samples = []
            who = IdentityKey(IdKind.DNI, "ESP", "12345678Z")
            for _ in range(count):
                t = time.perf_counter()
                assert client.check(who).status is RegistryStatus.LISTED
                samples.append((time.perf_counter() - t) * 1000)
    return (
        f"online check, TLS + client cert on loopback, {count} checks: p50 / p95",
        f"{pct(samples, 0.5):.1f} / {pct(samples, 0.95):.1f} ms",
        "-",
    )


if __name__ == "__main__":
    raise SystemExit(main())
