"""Regenerate the burst recordings in ``bursts/`` (JSON: list of [char, seconds]).

Timings model what readers and people do at the counter: a wedge reader types a
character every 2-8 ms and pauses 40-120 ms between lines; a serial reader delivers
chunks at the same instant; a fast person types every 45-160 ms with occasional
roll-over pairs 5-15 ms apart. The MRZs are the ICAO 9303 specimens (fictional UTO
"Anna Maria Eriksson"). Run: ``python -m tests.scanner.make_bursts``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent / "bursts"

TD3 = (
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
)
TD2 = (
    "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
    "D231458907UTO7408122F1204159<<<<<<<6",
)
TD1 = (
    "I<UTOD231458907<<<<<<<<<<<<<<<",
    "7408122F1204159UTO<<<<<<<<<<<6",
    "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
)


def reader(
    chunks: list[str],
    rng: random.Random,
    *,
    t0: float = 10.0,
    key: tuple[float, float] = (0.002, 0.008),
    pause: tuple[float, float] = (0.04, 0.12),
) -> list[list[object]]:
    """Each chunk typed at reader speed, a pause after each chunk but the last."""
    out: list[list[object]] = []
    t = t0
    for i, chunk in enumerate(chunks):
        for c in chunk:
            out.append([c, round(t, 4)])
            t += rng.uniform(*key)
        if i < len(chunks) - 1:
            t += rng.uniform(*pause)
    return out


def person(text: str, rng: random.Random, *, t0: float = 10.0) -> list[list[object]]:
    out: list[list[object]] = []
    t = t0
    for i, c in enumerate(text):
        out.append([c, round(t, 4)])
        rollover = i % 7 == 3  # two keys pressed almost together
        t += rng.uniform(0.005, 0.015) if rollover else rng.uniform(0.045, 0.16)
    return out


def bursts() -> dict[str, list[list[object]]]:
    rng = random.Random(4)
    td3_cut = TD3[0] + "\r\n" + TD3[1][:20]
    return {
        "td3_crlf": reader([TD3[0] + "\r\n", TD3[1] + "\r\n"], rng),
        "td1_cr_only": reader([TD1[0] + "\r", TD1[1] + "\r", TD1[2] + "\r"], rng),
        "td2_lf_stx_etx": reader(["\x02" + TD2[0] + "\n", TD2[1] + "\n\x03"], rng),
        "td3_aim_and_reader_codes": reader(
            ["]Q0OCR\r" + TD3[0] + "\r", TD3[1] + "\r", "OK\r"], rng
        ),
        "td3_split_lines": reader(
            [TD3[0][:20] + "\r", TD3[0][20:] + "\r", TD3[1][:30] + "\r", TD3[1][30:] + "\r"],
            rng,
            pause=(0.15, 0.2),
        ),
        "td1_no_terminators": reader(["".join(TD1)], rng, key=(0.0005, 0.001)),
        "serial_chunks_td3": [
            [c, 3.0 + 0.02 * (i // 16)] for i, c in enumerate("\r\n".join(TD3) + "\r\n")
        ],
        "human_typing_fast": person(TD3[0], rng),
        "td3_cut_in_half": reader([td3_cut], rng),
        "hostile_control_chars": reader(
            [TD3[0][:10] + "\x1b[2J\x00" + TD3[0][10:] + "\r", TD3[1] + "\r"], rng
        ),
        "hostile_10000": [
            ["<" if i % 3 else "A", round(10.0 + i * 0.001, 4)] for i in range(10_000)
        ],
        "card_code_wedge": reader(["ADM1-MAD01-1234567-7QX2KD9M\r"], rng),
        "markup_burst": reader(["<b>ADMIT</b><img src=x onerror=alert(1)>\r"], rng),
    }


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for name, events in bursts().items():
        (HERE / f"{name}.json").write_text(json.dumps(events, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
