"""The composition root builds one typed context; the services over it work without a
process: the retention sweep, the card files, the registry with its verifier, and the
visitor file's creation by ``init`` (art. 20.4: never silently)."""

from __future__ import annotations

import base64
import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.records import PurgeReport
from admission.retention import retention_cutoff
from admission.retention_sweep import LAST_PURGE, RetentionSweep
from hardware.printer.card_files import CardFiles

T0 = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)


class _Stamps:
    def __init__(self, *, damaged: bool = False, newest: datetime | None = None) -> None:
        self.settings: dict[str, str] = {}
        self.damaged = damaged
        self.newest = newest
        self.audited: list[tuple[str, str, dict[str, str] | None]] = []

    def get_setting(self, key: str) -> str | None:
        return self.settings.get(key)

    def set_setting(self, key: str, value: str) -> None:
        self.settings[key] = value

    def newest_event(self) -> datetime | None:
        return self.newest

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        self.audited.append((action, subject, details))
        return len(self.audited)


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
    folder = tmp_path / "cards"
    (folder / "card-3-2.pdf").write_bytes(b"%PDF-")  # the PDF-folder printer's second job
    (folder / "card-stray.pdf").write_bytes(b"%PDF-")  # no card's file: not the sweep's
    stale, fresh = folder / "card-00000009.tmp", folder / "card-00000010.tmp"
    for tmp in (stale, fresh):
        tmp.write_bytes(b"%PDF-half")
    an_hour_ago = time.time() - 3600
    os.utime(stale, (an_hour_ago, an_hour_ago))
    stamps, vouchers = _Stamps(), _Vouchers()
    cutoff = T0 - timedelta(days=183)
    purges: list[datetime] = []

    def purge_file(asked: datetime) -> PurgeReport:
        purges.append(asked)
        return PurgeReport(cutoff, 2, 1, 0, 2, purged_cards=(1, 3))

    # the automatic run reads the system clock (here the same fixed instant)
    sweep = RetentionSweep(purge_file, stamps, vouchers, files, clock, clock)
    report = sweep.purge_if_due()
    assert report is not None and report.cards == 2
    # exactly the erased cards' files, and the temporary file left by an old, cut write
    assert sorted(p.name for p in folder.iterdir()) == [
        "card-00000002.pdf",
        "card-00000010.tmp",
        "card-stray.pdf",
    ]
    assert vouchers.cutoffs == [cutoff]  # closed vouchers go with the same cutoff (art. 23.4)
    assert stamps.settings[LAST_PURGE] == T0.isoformat()
    assert sweep.purge_if_due() is None  # not again the same day
    clock.set(T0 + timedelta(days=1))
    assert sweep.purge_if_due() is not None and len(purges) == 2


def test_a_purge_that_erased_no_card_deletes_no_card_file(tmp_path: Path) -> None:
    """An emptied or replaced visitor file holds no card: its purge must not take every
    PDF with it (the old rule, "every file whose card is not in the file", did)."""
    files = CardFiles(tmp_path / "cards", lambda n: b"%PDF-" + str(n).encode())
    for number in (1, 2):
        files.write(number)
    assert files.sweep(()) == 0
    assert sorted(p.name for p in (tmp_path / "cards").iterdir()) == [
        "card-00000001.pdf",
        "card-00000002.pdf",
    ]


def test_the_daily_sweep_waits_while_the_file_is_damaged(tmp_path: Path) -> None:
    purges: list[int] = []

    def purge_file(cutoff: datetime) -> PurgeReport:
        purges.append(1)
        return PurgeReport(T0, 0, 0, 0, 0)

    files = CardFiles(tmp_path / "cards", lambda n: b"")
    clock = FixedClock(T0)
    sweep = RetentionSweep(purge_file, _Stamps(damaged=True), _Vouchers(), files, clock, clock)
    assert sweep.purge_if_due() is None and purges == []


def _sweep(
    stamps: _Stamps, command: FixedClock, system: FixedClock, tmp_path: Path
) -> tuple[RetentionSweep, list[datetime]]:
    cutoffs: list[datetime] = []

    def purge_file(cutoff: datetime) -> PurgeReport:
        cutoffs.append(cutoff)
        return PurgeReport(cutoff, 0, 0, 0, 0)

    files = CardFiles(tmp_path / "cards", lambda n: b"")
    return RetentionSweep(purge_file, stamps, _Vouchers(), files, command, system), cutoffs


def test_the_automatic_purge_runs_on_the_system_clock_never_on_a_given_instant(
    tmp_path: Path,
) -> None:
    # ``admit --at`` a year ahead (allowed only with ADMISSION_CLOCK_OVERRIDE): the day's
    # automatic purge still cuts six months before the real now (art. 20.4)
    stamps = _Stamps(newest=T0 - timedelta(hours=3))
    sweep, cutoffs = _sweep(stamps, FixedClock(T0 + timedelta(days=365)), FixedClock(T0), tmp_path)
    assert sweep.purge_if_due() is not None
    assert cutoffs == [retention_cutoff(T0)]  # same Madrid wall clock, six months back


def test_a_clock_far_ahead_of_the_file_erases_nothing_and_is_audited(tmp_path: Path) -> None:
    # the counter PC's clock jumped a year ahead: the purge would erase this month's visits
    from admission.errors import InvalidStateError

    jumped = FixedClock(T0 + timedelta(days=365))
    stamps = _Stamps(newest=T0)
    sweep, cutoffs = _sweep(stamps, jumped, jumped, tmp_path)
    assert sweep.purge_if_due() is None and cutoffs == []  # refused, once that day
    assert [(a, s) for a, s, _ in stamps.audited] == [("PURGE_REFUSED", "SUSPECT_CLOCK")]
    with pytest.raises(InvalidStateError) as refused:
        sweep.purge()
    assert refused.value.code == "SUSPECT_CLOCK" and cutoffs == []
    # a closure that long is real: the director confirms the date, audited too
    assert sweep.purge(confirm_clock=True, actor="director").cutoff == cutoffs[0]
    assert stamps.audited[-1][0] == "PURGE_CLOCK_CONFIRMED"
    # two weeks closed is ordinary: no question asked
    weekend = _Stamps(newest=T0 - timedelta(days=13))
    sweep, cutoffs = _sweep(weekend, FixedClock(T0), FixedClock(T0), tmp_path)
    assert sweep.purge() is not None and weekend.audited == []


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
    tools = build_tools(tmp_path, clock=FixedClock(T0))
    tools.init_file()
    ctx = build_context(tools)
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

    tools = build_tools(tmp_path, clock=FixedClock(T0))
    tools.init_file()
    ctx = build_context(tools)
    try:
        code, payload = purge.run(argparse.Namespace(confirm_clock=False, actor="cli"), ctx)
    finally:
        ctx.close()
    assert code is ExitCode.OK and isinstance(payload, dict)
    assert payload["visits"] == 0 and payload["cutoff"].startswith("2026-06-03")


def test_no_command_creates_the_file_init_does_once(tmp_path: Path, key: None) -> None:
    """Art. 20.4: the file never starts over on its own; creating it is ``init``'s act."""
    from main import build_context, build_tools

    tools = build_tools(tmp_path / "desk", clock=FixedClock(T0))
    with pytest.raises(StoreError) as err:
        build_context(tools)
    assert err.value.code == "NO_FILE" and not (tmp_path / "desk").exists()
    file_id = tools.init_file()
    with pytest.raises(StoreError) as err:
        tools.init_file()
    assert err.value.code == "FILE_EXISTS"
    ctx = build_context(tools)
    try:
        assert ctx.store.file_id == file_id
        created = [e for e in ctx.store.audit_entries() if e.action == "FILE_CREATED"]
        assert [(e.actor, e.details["file_id"]) for e in created] == [("init", file_id)]
    finally:
        ctx.close()


def test_the_demo_creates_its_own_file_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    ctx = build_context(build_tools(tmp_path / "demo", clock=FixedClock(T0), demo=True))
    try:
        assert ctx.store.file_id and (tmp_path / "demo" / "visitors.db.marker").is_file()
    finally:
        ctx.close()
