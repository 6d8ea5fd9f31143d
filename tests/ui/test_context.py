"""The composition root builds one typed context; the services over it work without a
process: the retention sweep, the card files, the registry with its verifier."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.records import CardRecord, CardStatus, PurgeReport
from admission.retention_sweep import LAST_PURGE, RetentionSweep
from hardware.printer.card_files import CardFiles

T0 = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)


class _Stamps:
    def __init__(self, cards: set[int]) -> None:
        self.settings: dict[str, str] = {}
        self.cards = cards

    def get_setting(self, key: str) -> str | None:
        return self.settings.get(key)

    def set_setting(self, key: str, value: str) -> None:
        self.settings[key] = value

    def card(self, number: int) -> CardRecord | None:
        if number not in self.cards:
            return None
        day = T0.date()
        return CardRecord(
            number,
            1,
            number,
            "DAY",
            1000,
            T0,
            day,
            day,
            CardStatus.ISSUED,
            exceptional=False,
            private_rooms=False,
            authorised_by="",
            print_count=0,
            void_reason="",
        )


class _Vouchers:
    def __init__(self) -> None:
        self.cutoffs: list[datetime] = []

    def purge_vouchers(self, cutoff: datetime) -> int:
        self.cutoffs.append(cutoff)
        return 0


def test_the_sweep_erases_the_files_of_erased_cards_and_runs_once_a_day(tmp_path: Path) -> None:
    clock = FixedClock(T0)
    files = CardFiles(tmp_path / "cards", lambda n: b"%PDF-" + str(n).encode())
    for number in (1, 2, 3):
        files.write(number)
    (tmp_path / "cards" / "card-stray.pdf").write_bytes(b"%PDF-")
    stamps, vouchers = _Stamps(cards={2}), _Vouchers()
    cutoff = T0 - timedelta(days=183)
    purges: list[datetime] = []

    def purge_file() -> PurgeReport:
        purges.append(clock.now())
        return PurgeReport(cutoff, 2, 1, 0, 2)

    sweep = RetentionSweep(purge_file, stamps, vouchers, files, clock)
    report = sweep.purge_if_due()
    assert report is not None and report.cards == 2
    assert sorted(p.name for p in (tmp_path / "cards").iterdir()) == ["card-00000002.pdf"]
    assert vouchers.cutoffs == [cutoff]  # closed vouchers go with the same cutoff (art. 23.4)
    assert stamps.settings[LAST_PURGE] == T0.isoformat()
    assert sweep.purge_if_due() is None  # not again the same day
    clock.set(T0 + timedelta(days=1))
    assert sweep.purge_if_due() is not None and len(purges) == 2


def test_card_files_are_written_whole(tmp_path: Path) -> None:
    files = CardFiles(tmp_path / "cards", lambda n: b"%PDF-1.4 card " + str(n).encode())
    path = files.write(42)
    assert path.name == "card-00000042.pdf" and path.read_bytes().endswith(b"card 42")
    assert not list((tmp_path / "cards").glob("*.tmp"))


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMISSION_DB_KEY", "context test passphrase")


def test_the_context_is_built_once_with_the_registry_verifier(tmp_path: Path, key: None) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from main import build_context, build_tools

    public = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    (tmp_path / "settings.json").write_text(
        json.dumps({"registry.public_key": base64.b64encode(public).decode()})
    )
    ctx = build_context(build_tools(tmp_path, clock=FixedClock(T0)))
    try:
        # one replica, with the verifier, behind both the checks and the import command
        assert ctx.replica._verifier is not None
        assert ctx.registry._replica is ctx.replica
        assert ctx.desk._registry is ctx.registry
        assert ctx.registry_sync is None  # no online endpoint configured
        assert ctx.card_files.folder == tmp_path / "cards"
        assert ctx.clock.now() == T0
        assert len(ctx.card_code(1)) > 8
    finally:
        ctx.close()


def test_commands_run_in_process_against_the_context(tmp_path: Path, key: None) -> None:
    import argparse

    from main import build_context, build_tools
    from ui.cli import purge
    from ui.cli.result import ExitCode

    ctx = build_context(build_tools(tmp_path, clock=FixedClock(T0)))
    try:
        code, payload = purge.run(argparse.Namespace(), ctx)
    finally:
        ctx.close()
    assert code is ExitCode.OK and isinstance(payload, dict)
    assert payload["visits"] == 0 and payload["cutoff"].startswith("2026-06-03")
