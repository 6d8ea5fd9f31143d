"""``read-chip``: DG1 as ``parse-mrz`` answers it and the chip's proof, never the photo;
exit 0 genuine, 1 not genuine, 2 usage, 3 the reader. The chips are the product's own
virtual chips (``hardware.chip``), read through the same station the desk uses."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from admission.chip import ChipCode
from admission.clock import FixedClock
from admission.mrz.parse import parse_mrz
from hardware.chip.fake import FakeChipReader
from hardware.chip.lds import build_dg1
from hardware.chip.reader import ReaderStation
from hardware.chip.virtual_chip import make_document
from hardware.generators.demo_chips import invented_face
from tests.ui.conftest import DESK_T0
from ui.cli import read_chip
from ui.context import AppContext
from ui.desk.demo_scenario import demo_cases

LINES = demo_cases(date(2026, 12, 3))[0].lines  # an invented DNI 4.0 (TD1)
OTHER = demo_cases(date(2026, 12, 3))[1].lines


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    context = build_context(build_tools(tmp_path / "demo", clock=FixedClock(DESK_T0), demo=True))
    try:
        yield context
    finally:
        context.close()


def with_reader(ctx: AppContext, reader: FakeChipReader, trust: object) -> AppContext:
    station = ReaderStation(reader, lambda: trust, card_timeout=0.0)  # type: ignore[arg-type,return-value]
    devices = replace(ctx.devices, chip_station=lambda _ctx: station)
    return replace(ctx, tools=replace(ctx.tools, devices=devices))


def run(ctx: AppContext, *argv: str) -> tuple[int, dict[str, object]]:
    parser = argparse.ArgumentParser()
    read_chip.COMMAND.arguments(parser, argparse.ArgumentParser(add_help=False))
    code, out = read_chip.run(parser.parse_args(list(argv)), ctx)
    assert isinstance(out, dict)
    json.dumps(out)  # all of it JSON
    return int(code), out


def test_a_genuine_chip_prints_dg1_as_the_parser_does_and_its_proof(ctx: AppContext) -> None:
    code, out = run(ctx, "--mrz", *LINES)  # the demo's virtual chip of this document
    assert code == 0
    assert out["dg1"] == parse_mrz(list(LINES), today=ctx.tools.today()).to_json()
    assert out["chip"] == {
        "status": "CHIP_GENUINE",
        "code": "",
        "access": "PACE",
        "authentication": "CHIP_AUTHENTICATION",
        "issuer": "ESP",
    }
    assert isinstance(out["apdus"], int) and out["apdus"] > 5
    text = json.dumps(out)
    assert "photo" not in text and "/9j/" not in text  # no face, not even in base64
    audits = [e for e in ctx.store.audit_entries() if e.action == read_chip.AUDIT_READ]
    assert [e.details["status"] for e in audits] == ["CHIP_GENUINE"]


def test_a_chip_whose_mrz_is_not_the_printed_one_is_forged(ctx: AppContext) -> None:
    chip, trust = make_document(
        "".join(LINES),
        invented_face(1),
        access="PACE+BAC",
        replace={"DG1": build_dg1("".join(OTHER))},  # another person's DG1 after signing
    )
    code, out = run(with_reader(ctx, FakeChipReader.of([chip]), trust), "--mrz", *LINES)
    assert code == 1
    chip_out = out["chip"]
    assert isinstance(chip_out, dict) and chip_out["status"] == "CHIP_FORGED"
    assert chip_out["code"] in (ChipCode.DG_HASH_MISMATCH.value, ChipCode.DG1_MRZ_MISMATCH.value)


def test_the_can_opens_a_pace_only_chip(ctx: AppContext) -> None:
    chip, trust = make_document("".join(LINES), invented_face(2), access="PACE", can="204517")
    reader = FakeChipReader.of([chip])
    code, out = run(with_reader(ctx, reader, trust), "--can", "204517")
    assert code == 0 and out["dg1"] is not None
    assert out["chip"]["status"] == "CHIP_GENUINE"  # type: ignore[index]
    again, trust = make_document("".join(LINES), invented_face(2), access="PACE", can="204517")
    reader.put(again)
    code, out = run(with_reader(ctx, reader, trust), "--mrz", *LINES)  # its MRZ: refused
    assert code == 1 and out["chip"]["code"] == ChipCode.CAN_NEEDED.value, out  # type: ignore[index]
    assert out["dg1"] is None


def test_no_card_and_no_reader_are_the_device_and_a_bad_can_is_usage(ctx: AppContext) -> None:
    code, out = run(with_reader(ctx, FakeChipReader.of([None]), None), "--can", "123456")
    assert code == 3 and out["chip"]["code"] == ChipCode.NO_CHIP.value  # type: ignore[index]
    none = replace(ctx, tools=replace(ctx.tools, devices=replace(ctx.devices, chip_station=None)))
    code, out = run(none, "--can", "123456")
    assert code == 3 and out["error"] == ChipCode.READER_ERROR.value
    code, out = run(ctx, "--can", "12345a")
    assert code == 2 and out["error"] == "USAGE"
    with pytest.raises(SystemExit):
        run(ctx)  # a key is required: --can or --mrz


def test_read_chip_through_main_in_the_demo(tmp_path: Path) -> None:
    from tests.test_cli import cli

    code, out = cli("read-chip", "--demo", "--mrz", *LINES, data_dir=tmp_path)
    assert code == 0, out
    assert isinstance(out, dict) and out["chip"]["status"] == "CHIP_GENUINE"
