"""``registry`` command handlers (JSON payloads and exit codes) and one run through main.py."""

from __future__ import annotations

import contextlib
import json
from datetime import timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.registry.policy import RegistryPolicy
from admission.registry.snapshot import render_snapshot
from db.memory import MemoryStore
from db.registry_replica import ReplicaRegistry
from hardware.registry.fake import FakeRegistry
from hardware.registry.sync import RegistrySync
from tests.registry.conftest import T0
from ui.cli.registry import check_command, import_command, status_command, sync_command

DAY = timedelta(hours=24)


def test_import_status_check(replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path) -> None:
    code, payload = status_command(replica, clock, DAY, online_configured=False)
    assert code == 1 and payload["replica"] is None and not payload["usable"]
    path = tmp_path / "riaj.txt"
    path.write_text("# RIAJ\n12345678Z\nX1234567L\n", encoding="utf-8")
    code, payload = import_command(replica, path)
    assert code == 0 and payload["imported"] and payload["entries"] == 2
    clock.advance(timedelta(hours=2))
    code, payload = status_command(replica, clock, DAY, online_configured=False)
    assert code == 0 and payload["replica"]["age_seconds"] == 7200 and payload["usable"]
    assert payload["events"][0]["code"] == "OK"
    policy = RegistryPolicy(clock, replica=replica)
    code, payload = check_command(policy, "12345678-z")
    assert code == 0 and payload["status"] == "LISTED" and payload["source"] == "REPLICA"
    assert "12345678Z" not in json.dumps(payload)
    code, payload = check_command(policy, "X1234567L", kind="nie")
    assert payload["status"] == "LISTED"
    assert check_command(policy, "00000000T")[1]["status"] == "NOT_LISTED"
    assert check_command(policy, "!!", kind="DNI")[0] == 2
    assert check_command(policy, "12345678Z", kind="SPACESHIP")[0] == 2
    clock.advance(timedelta(hours=30))
    code, payload = check_command(policy, "00000000T")
    assert code == 1 and payload["error"] == "REPLICA_STALE"


def test_rejected_import_keeps_the_previous_version(
    replica: ReplicaRegistry, tmp_path: Path
) -> None:
    good = tmp_path / "good.txt"
    good.write_text("12345678Z\n")
    import_command(replica, good)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(render_snapshot(["1"], version="v2", as_of=T0, salt=b"s" * 16)[:-10])
    code, payload = import_command(replica, bad)
    assert code == 1 and payload["error"] == "SNAPSHOT_TRUNCATED"
    assert payload["active_version"].startswith("plain-")
    code, payload = import_command(replica, tmp_path)  # a folder is never read
    assert (code, payload["error"]) == (1, "SNAPSHOT_NOT_A_FILE")
    assert payload["active_version"].startswith("plain-")


def test_a_repeated_identifier_is_kept_once_and_its_lines_given(
    replica: ReplicaRegistry, tmp_path: Path
) -> None:
    dup = tmp_path / "dup.txt"
    dup.write_text("# lista\n12345678Z\n99999999R\n12345678z\n12345678-Z\n")
    code, payload = import_command(replica, dup)
    assert code == 0 and payload["imported"] and payload["entries"] == 2
    assert (payload["duplicates"], payload["duplicate_lines"]) == (2, [4, 5])


def test_sync_command(replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path) -> None:
    assert sync_command(None)[1]["error"] == "REGISTRY_NOT_CONFIGURED"
    (tmp_path / "l.txt").write_text("12345678Z\n")
    import_command(replica, tmp_path / "l.txt")
    fake = FakeRegistry(clock)
    clock.advance(timedelta(hours=1))
    fake.add("99999999R")
    clock.advance(timedelta(minutes=5))
    code, payload = sync_command(RegistrySync(fake, replica, clock))
    assert code == 0 and payload["added"] == 1 and payload["age_seconds"] == 0
    assert check_command(RegistryPolicy(clock, replica=replica), "99999999R")[1]["status"] == (
        "LISTED"
    )


def test_main_registry_commands_on_the_real_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main = pytest.importorskip("main")
    monkeypatch.setenv("ADMISSION_DB_KEY", "registry-cli-test-key-0123456789")
    data = tmp_path / "data"
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("# lista\n12345678Z\n", encoding="utf-8")

    def run(*argv: str) -> tuple[int, dict[str, object]]:
        code = main.run([*argv, "--data-dir", str(data)])
        return code, json.loads(capsys.readouterr().out)

    with contextlib.suppress(SystemExit):  # a fresh folder needs init, where it exists
        main.run(["init", "--data-dir", str(data)])
    capsys.readouterr()
    assert run("registry", "import", str(snapshot))[0] == 0
    code, payload = run("registry", "check", "--id", "12345678-Z")
    assert (code, payload["status"], payload["source"]) == (0, "LISTED", "REPLICA")
    code, payload = run("registry", "status")
    assert code == 0 and payload["replica"]["entries"] == 1  # type: ignore[index]
    snapshot.write_text("12345678Z\n12345678Z\n", encoding="utf-8")
    code, payload = run("registry", "import", str(snapshot))
    assert (code, payload["duplicates"], payload["duplicate_lines"]) == (0, 1, [2])
    snapshot.write_text("12345678Z\n" + "9" * 300 + "\n", encoding="utf-8")
    code, payload = run("registry", "import", str(snapshot))
    assert (code, payload["error"], payload["line"]) == (1, "SNAPSHOT_LINE_TOO_LONG", 2)
    assert run("registry", "check", "--id", "12345678Z")[1]["status"] == "LISTED"


def test_handlers_accept_a_plain_sqlite_replica(tmp_path: Path, clock: FixedClock) -> None:
    """The handlers only need the replica's methods (used with the plain-SQLite bench)."""
    (tmp_path / "l.txt").write_text("12345678Z\n")
    with MemoryStore(clock) as store:
        assert import_command(ReplicaRegistry(store, clock), tmp_path / "l.txt")[0] == 0
