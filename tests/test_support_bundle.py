"""``support-bundle`` (ui.cli.support): the zip a technician reads - its members, the
settings without a secret, no invented visitor of the demo, the audit head only when the
file opens - and the refusals of ``--out`` (admission.atomic_file.OutputGuard)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import cli, init_file
from tests.test_desk_log import demo_secrets
from ui.cli.support import REDACTED, redacted

ROOT = Path(__file__).resolve().parents[1]
MAIN = str(ROOT / "main.py")
MEMBERS = {
    "manifest.json",
    "settings.json",
    "versions.json",
    "platform.json",
    "devices.json",
    "audit.json",
    "logs/desk.log",
}
SECRETS = ("Sup3rS3cretPw", "Other1Secret", "Pw-9f8e7d", "tok-5a4b3c", "2468135", "BEGIN-PEM-x")


def _run(*argv: str) -> tuple[int, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADMISSION_")}
    done = subprocess.run(
        [sys.executable, MAIN, *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_demo_s_bundle_has_its_members_and_no_invented_visitor(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    code, out = _run("--demo", "demo", "--data-dir", str(data))
    assert code == 0, out
    code, head = _run("--demo", "audit", "head", "--data-dir", str(data))
    assert code == 0, head
    bundle = tmp_path / "bundle.zip"
    code, out = _run("--demo", "support-bundle", "--out", str(bundle), "--data-dir", str(data))
    assert code == 0, out
    assert out["bundle"] == str(bundle) and set(out["members"]) == MEMBERS
    if os.name == "posix":
        assert bundle.stat().st_mode & 0o077 == 0
    found = members(bundle)
    assert set(found) == MEMBERS
    audit = json.loads(found["audit.json"])
    assert audit["opened"] is True and audit["file_bytes"] > 0
    assert (audit["head"]["seq"], audit["head"]["digest"]) == (head["seq"], head["digest"])
    versions = json.loads(found["versions.json"])
    assert versions["desk"] and versions["engines"]["sqlcipher"].startswith("4.")
    assert versions["engines"]["qt"] and versions["engines"]["opencv"]
    assert versions["requirements"]["sqlcipher3"] and versions["requirements"]["PySide6-Essentials"]
    devices = json.loads(found["devices.json"])
    assert devices["card_printer"]["preflight"] == "READY"  # the demo's PDF folder
    assert json.loads(found["platform.json"])["data_folder"]["free_bytes"] > 0
    everything = bundle.read_bytes() + b"".join(found.values())
    text = everything.decode("utf-8", errors="replace").upper()
    assert [s for s in demo_secrets() if s in text] == []


def test_no_secret_of_the_settings_reaches_the_bundle(tmp_path: Path) -> None:
    init_file(tmp_path)
    settings = {
        "version": 2,
        "database.url": "postgresql://desk1:Sup3rS3cretPw@127.0.0.1:1/admission"
        "?sslmode=verify-full&sslpassword=Other1Secret",
        "floor.key_file": "/etc/admission/floor-key.pem",
        "registry.client_key": "-----BEGIN PRIVATE KEY-----\nBEGIN-PEM-x\n",
        "registry.password": "Pw-9f8e7d",  # not a setting: the file is refused, still redacted
        "api_token": "tok-5a4b3c",
        "desk": {"pin": "2468135"},
    }
    (tmp_path / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    bundle = tmp_path.parent / f"{tmp_path.name}-bundle.zip"
    code, out = cli("support-bundle", "--out", str(bundle), data_dir=tmp_path)
    assert code == 0, out
    found = members(bundle)
    everything = bundle.read_bytes() + b"".join(found.values())
    assert [s for s in SECRETS if s.encode() in everything] == []
    shown = json.loads(found["settings.json"])["values"]
    assert shown["database.url"].startswith(f"postgresql://desk1:{REDACTED}@127.0.0.1:1/")
    assert shown["floor.key_file"] == "/etc/admission/floor-key.pem"  # a path, not the key
    assert shown["registry.client_key"] == REDACTED
    audit = json.loads(found["audit.json"])
    assert audit["opened"] is False and audit["why"] == "UNKNOWN_SETTING"


def test_a_server_desk_that_cannot_reach_its_server_says_why(tmp_path: Path) -> None:
    init_file(tmp_path)
    url = "postgresql://desk1:Sup3rS3cretPw@127.0.0.1:1/admission"
    (tmp_path / "settings.json").write_text(
        json.dumps({"version": 2, "database.url": url}), encoding="utf-8"
    )
    bundle = tmp_path.parent / f"{tmp_path.name}-bundle.zip"
    code, out = cli("support-bundle", "--out", str(bundle), data_dir=tmp_path)
    assert code == 0, out
    found = members(bundle)
    assert b"Sup3rS3cretPw" not in bundle.read_bytes() + b"".join(found.values())
    audit = json.loads(found["audit.json"])
    assert audit["opened"] is False and audit["why"] and audit["file_bytes"] is None


def test_a_file_that_does_not_open_still_gives_a_bundle(tmp_path: Path) -> None:
    init_file(tmp_path)
    bundle = tmp_path.parent / f"{tmp_path.name}-bundle.zip"
    code, out = cli("support-bundle", "--out", str(bundle), data_dir=tmp_path, key="wrong-key")
    assert code == 0, out
    audit = json.loads(members(bundle)["audit.json"])
    assert audit["opened"] is False and audit["why"] == "WRONG_KEY"


@pytest.mark.parametrize(
    ("target", "force", "expected"),
    [
        ("{out}", False, "OUTPUT_EXISTS"),
        ("{data}/visitors.db", True, "OUTPUT_PROTECTED"),
        ("{data}/settings.json", True, "OUTPUT_PROTECTED"),
        ("{data}/logs/desk.log", True, "OUTPUT_PROTECTED"),
        ("{data}/logs/new.zip", False, "OUTPUT_PROTECTED"),
        ("{tmp}", True, "OUTPUT_NOT_A_FILE"),
    ],
)
def test_out_is_refused_where_it_must_not_write(
    tmp_path: Path, target: str, force: bool, expected: str
) -> None:
    data = tmp_path / "desk"
    data.mkdir()
    init_file(data)
    out = tmp_path / "bundle.zip"
    assert cli("support-bundle", "--out", str(out), data_dir=data)[0] == 0
    before = {p: p.read_bytes() for p in data.rglob("*") if p.is_file()}
    path = target.format(out=out, data=data, tmp=tmp_path)
    code, answer = cli(
        "support-bundle", "--out", path, *(["--force"] if force else []), data_dir=data
    )
    assert (code, answer["error"]) == (1, expected)
    after = {p: p.read_bytes() for p in data.rglob("*") if p.is_file() and p.name != "desk.log"}
    assert after == {p: b for p, b in before.items() if p.name != "desk.log"}
    code, answer = cli("support-bundle", "--out", str(out), "--force", data_dir=data)
    assert code == 0, answer  # --force replaces a bundle of its own


def test_redaction_keeps_paths_and_drops_key_material() -> None:
    assert redacted({"a.password": "x", "b.secret": "", "c.pin": 1234, "d.port": 5}) == {
        "a.password": REDACTED,
        "b.secret": "",
        "c.pin": REDACTED,
        "d.port": 5,
    }
    assert redacted({"floor.key_file": "/k.pem", "registry.public_key": "ab12"}) == {
        "floor.key_file": "/k.pem",
        "registry.public_key": REDACTED,
    }
    assert redacted({"x": "host=db password='a b' user=u"})["x"] == (
        f"host=db password={REDACTED} user=u"
    )
    assert redacted({"u": "https://user:pw@h/p?token=t&q=1"})["u"] == (
        f"https://user:{REDACTED}@h/p?token=%3Credacted%3E&q=1"
    )
    assert redacted({"camera.device": "0", "spinner": "a", "keyboard.layout": "es"}) == {
        "camera.device": "0",
        "spinner": "a",
        "keyboard.layout": "es",
    }
