"""Chip benchmark (ICAO 9303): the time from the card on the reader to the verdict with
its photo, on the virtual reader through pcscd AND with the virtual chip in process.

Run: ``nice .venv/bin/python tests/bench/bench_chip.py [--runs N]``.

Each read is a whole one as the desk does it: BAC (the MRZ) or PACE (the CAN, ECDH
Generic Mapping on brainpoolP256r1, AES-128), then EF.COM, DG1, DG2 (a 20 kB JPEG face)
and EF.SOD under secure messaging, then passive authentication (the SOD's ECDSA
signature, the DSC against the test CSCA, the CRL and every hash) and DG1 against the
printed MRZ. Split into the secure channel, the reading and the verification; through
pcscd also the time for pcscd to see the card and to connect ("detect"). Reading with
extended length (4 kB per READ BINARY) and with short commands (223 bytes each).

The estimate for a real 424 kbit/s reader is a model, not a measurement:
``(bytes sent + bytes received) * 8 / 424000 + APDUs * 5 ms`` (a per-command turnaround
of the reader, its driver and the chip's own work, 5 ms assumed) + the host's own
compute of the channel and the verification as measured in process. A real chip's EC
arithmetic for PACE and its EEPROM reads are slower than 5 ms per APDU: take it as a
lower bound. Needs root, pcscd and vsmartcard-vpcd for the pcscd rows (else they are
skipped with the reason). Prints two markdown tables.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hardware.chip.access import AccessKey, CanKey  # noqa: E402
from hardware.chip.document_pki import make_pki  # noqa: E402
from hardware.chip.pcsc import PcscChipReader  # noqa: E402
from hardware.chip.reader import ChipRead, mrz_key, read_chip  # noqa: E402
from hardware.chip.virtual_chip import make_document  # noqa: E402
from tests.chip.vpcd import VpcdBridge, VpcdUnavailable, pcscd_with_vpcd  # noqa: E402

# an invented person
MRZ = "IDESPXYZ123456<99999999R<<<<<<8001014F3101017ESP<<<<<<<<<<<8PRUEBA<INVENTADA<<ANA<<<<<<<<<"
AT = datetime(2026, 12, 1, 12, tzinfo=UTC)
LINK_BPS = 424_000
TURNAROUND = 0.005  # seconds per APDU assumed for a real reader and chip


def face_jpeg(size: int = 20_000) -> bytes:
    """A JPEG of about ``size`` bytes (noise, so it does not compress away)."""
    try:
        from PIL import Image
    except ImportError:
        return b"\xff\xd8\xff\xe0" + os.urandom(size - 4)
    side, quality = 160, 60
    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    while True:
        out = io.BytesIO()
        image.save(out, "JPEG", quality=quality)
        if len(out.getvalue()) >= size * 0.95 or quality >= 95:
            return out.getvalue()
        quality += 5


@dataclass
class Sample:
    read: ChipRead
    detect: float  # card put on -> connected (pcscd only)
    total: float  # card put on -> verdict with the photo


def one_read(
    access: str, extended: bool, photo: bytes, bridge: VpcdBridge | None, pki: object
) -> Sample:
    chip, trust = make_document(MRZ, photo, access=access, pki=pki, extended=extended)  # type: ignore[arg-type]
    key: AccessKey = CanKey("123456") if access == "PACE" else mrz_key(MRZ)
    if bridge is None:
        start = time.perf_counter()
        read = read_chip(chip, key, trust, printed_mrz=MRZ, at=AT)
        return Sample(read, 0.0, time.perf_counter() - start)
    reader = PcscChipReader("Virtual PCD 00 00", apdu_timeout=5.0)
    start = time.perf_counter()
    bridge.insert(chip)
    if not reader.wait_for_card(5.0):
        raise RuntimeError("pcscd did not see the card")
    card = reader.connect()
    detect = time.perf_counter() - start
    try:
        read = read_chip(card, key, trust, printed_mrz=MRZ, at=AT)
    finally:
        card.close()
    total = time.perf_counter() - start
    bridge.remove()
    reader.wait_for_removal(3.0)
    return Sample(read, detect, total)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def row(label: str, samples: list[Sample]) -> tuple[str, dict[str, float]]:
    reads = [s.read for s in samples]
    assert all(r.check.genuine for r in reads), [r.check for r in reads]
    m = {
        "detect": median_ms([s.detect for s in samples]),
        "channel": median_ms([r.timings["channel"] for r in reads]),
        "reading": median_ms([r.timings["reading"] for r in reads]),
        "verification": median_ms([r.timings["verification"] for r in reads]),
        "total": median_ms([s.total for s in samples]),
        "p95": sorted(s.total for s in samples)[max(0, round(0.95 * len(samples)) - 1)] * 1000,
        "apdus": reads[0].apdus,
        "out": reads[0].bytes_out,
        "in": reads[0].bytes_in,
    }
    return label, m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    photo = face_jpeg()
    pki = make_pki("ES", now=AT)
    cases = [(a, e) for a in ("BAC", "PACE") for e in (True, False)]
    rows: list[tuple[str, dict[str, float]]] = []
    for access, extended in cases:  # warm up the imports and the curves
        one_read(access, extended, photo, None, pki)
    for access, extended in cases:
        samples = [one_read(access, extended, photo, None, pki) for _ in range(args.runs)]
        rows.append(row(f"in process, {access}, {'extended' if extended else 'short'}", samples))
    skipped = ""
    try:
        with pcscd_with_vpcd() as port:
            bridge = VpcdBridge(port=port)
            for access, extended in cases:
                samples = [one_read(access, extended, photo, bridge, pki) for _ in range(args.runs)]
                label = f"pcscd + vpcd, {access}, {'extended' if extended else 'short'}"
                rows.append(row(label, samples))
    except VpcdUnavailable as why:
        skipped = str(why)

    print(f"Chip read, DG1 + DG2 ({len(photo)} B JPEG) + SOD, median of {args.runs} runs (ms)")
    print()
    header = "| path | detect | channel | reading | verification | total | p95 | APDUs |"
    print(header + " bytes out / in |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, m in rows:
        print(
            f"| {label} | {m['detect']:.1f} | {m['channel']:.1f} | {m['reading']:.1f} | "
            f"{m['verification']:.1f} | {m['total']:.1f} | {m['p95']:.1f} | {m['apdus']:.0f} | "
            f"{m['out']:.0f} / {m['in']:.0f} |"
        )
    if skipped:
        print(f"\npcscd rows skipped: {skipped}")
    print()
    print(
        f"Estimate for a real {LINK_BPS // 1000} kbit/s reader: bytes*8/{LINK_BPS} + "
        f"APDUs*{TURNAROUND * 1000:.0f} ms + host compute (channel + verification in process)"
    )
    print()
    print("| access, reading | APDUs | bytes | transfer | turnaround | host | estimate |")
    print("|---|---|---|---|---|---|---|")
    for label, m in rows:
        if not label.startswith("in process"):
            continue
        size = m["out"] + m["in"]
        transfer = size * 8 / LINK_BPS * 1000
        turnaround = m["apdus"] * TURNAROUND * 1000
        host = m["channel"] + m["verification"]
        total = transfer + turnaround + host
        print(
            f"| {label.removeprefix('in process, ')} | {m['apdus']:.0f} | {size:.0f} | "
            f"{transfer:.0f} ms | {turnaround:.0f} ms | {host:.0f} ms | {total:.0f} ms |"
        )


if __name__ == "__main__":
    main()
