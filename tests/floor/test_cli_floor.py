"""``floor token add | list | revoke`` and ``floor serve`` through the command line: the
token printed once and kept as its digest only, the service as a real process that
prints its URL and CA fingerprint, answers over HTTPS and stops on SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import ssl
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.test_cli import KEY, ROOT, cli, init_file
from tests.test_cli import quick_sign_in as quick_sign_in  # autouse here too


def test_a_device_token_is_printed_once_and_kept_as_its_digest(tmp_path: Path) -> None:
    code, out = cli("floor", "token", "add", "Puerta-Poker", data_dir=tmp_path)
    assert code == 0, out
    assert isinstance(out, dict) and out["name"] == "puerta-poker" and out["shown_once"]
    token = out["token"]
    assert token.startswith("flr_")
    code, again = cli("floor", "token", "add", "puerta-poker", data_dir=tmp_path)
    assert (code, again["error"]) == (1, "TOKEN_NAME_TAKEN")  # type: ignore[index]
    code, listed = cli("floor", "token", "list", data_dir=tmp_path)
    assert code == 0 and [t["name"] for t in listed["tokens"]] == ["puerta-poker"]  # type: ignore[index]
    assert token not in json.dumps(listed)
    code, out = cli("floor", "token", "revoke", "puerta-poker", data_dir=tmp_path)
    assert (code, out) == (0, {"revoked": True, "name": "puerta-poker"})
    code, out = cli("floor", "token", "revoke", "puerta-poker", data_dir=tmp_path)
    assert (code, out["error"]) == (1, "TOKEN_UNKNOWN")  # type: ignore[index]
    code, out = cli("floor", "token", "add", "no/way", data_dir=tmp_path)
    assert (code, out["error"]) == (1, "TOKEN_NAME_INVALID")  # type: ignore[index]
    code, out = cli("audit", "verify", data_dir=tmp_path)
    assert code == 0 and out["ok"] is True  # type: ignore[index]


def test_a_bad_listen_address_is_a_usage_error(tmp_path: Path) -> None:
    code, out = cli("floor", "serve", "--listen", "nowhere", data_dir=tmp_path)
    assert (code, out["error"]) == (2, "USAGE")  # type: ignore[index]
    code, out = cli("floor", "serve", "--listen", "192.0.2.1:8443", data_dir=tmp_path)
    assert (code, out["error"]) == (3, "FLOOR_LISTEN_FAILED")  # type: ignore[index]
    missing = ["--cert", str(tmp_path / "no.crt"), "--key", str(tmp_path / "no.key")]
    code, out = cli("floor", "serve", "--listen", "127.0.0.1:0", *missing, data_dir=tmp_path)
    assert (code, out["error"]) == (1, "FLOOR_CERT_UNREADABLE")  # type: ignore[index]
    code, out = cli("floor", "serve", "--cert", "x.crt", data_dir=tmp_path)
    assert (code, out["error"]) == (2, "USAGE")  # type: ignore[index]


def test_floor_serve_runs_until_sigterm(tmp_path: Path) -> None:
    init_file(tmp_path, KEY)
    env = {**os.environ, "ADMISSION_DB_KEY": KEY}
    argv = [sys.executable, str(ROOT / "main.py"), "floor", "serve", "--listen", "127.0.0.1:0",
            "--data-dir", str(tmp_path)]  # fmt: skip
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline() for _ in range(5)]
        url = re.search(r"https://\S+/", lines[0])
        assert url, lines
        fingerprint = lines[1].split("CA SHA-256: ", 1)[1].strip()
        assert re.fullmatch(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", fingerprint)
        assert "ca.crt" in lines[2] and "ca.crt" in lines[3]
        port = int(url.group(0).rsplit(":", 1)[1].strip("/"))
        trust = ssl.create_default_context(cafile=str(tmp_path / "floor-tls" / "ca.crt"))
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/api/health", context=trust) as r:
            assert json.load(r) == {"ok": True}
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    answer = json.loads(out)
    assert answer["stopped"] is True and answer["ca_sha256"] == fingerprint
