"""``support-bundle --out FILE.zip [--force]``: what a technician needs to help a desk,
in one zip, without a byte of the visitor file's personal data (art. 20.4).

The zip holds:

* ``settings.json`` - the settings file as written, every secret-bearing value replaced
  by ``"<redacted>"``: a key naming a password, a secret, a token, a PIN or key
  material, and the password (and secret query parameters) of any URL, the database
  URL's first. File *paths* stay (``floor.key_file``: where the key is, never the key);
  a value holding PEM material never does;
* ``versions.json`` - the desk's version, Python, Qt/PySide6, SQLCipher, OpenCV and every
  distribution pinned in ``requirements.txt`` as installed (``importlib.metadata``);
* ``platform.json`` - the OS, the machine and the data folder's free space;
* ``devices.json`` - the configured camera, document reader and printers, and the card
  printer's preflight answer through the desk's own port (never a frame);
* ``audit.json`` - the audit chain's head (``audit head``'s seq and digest) when the
  file opens with the key this command has, else the code saying why it did not; and the
  file's size;
* ``logs/`` - the newest files of the desk's log (``ui.log_file``), which never holds a
  name or a document number;
* ``manifest.json`` - when, what each member is, and what is never in it.

No sign-in: the bundle opens no personal data - the audit head is what ``audit head``
gives without one, the settings and the log are the desk user's files already - and a
technician without an account must be able to make it, above all when the file does not
open (a wrong key, a damaged file) and nobody could sign in anyway. Anyone who runs the
desk's program as its user may; the access matrix says so in its row.

The zip is written through the desk's output guard (``--out``: a new name, owner-only,
``--force`` to replace a file, never the visitor file or anything of its data folder).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
import re
import shutil
import sys
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from admission.atomic_file import OutputGuard
from admission.errors import AdmissionError
from admission.records import AuditHead
from ui.cli.args import add_output_arguments
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.context import Tools
from ui.log_file import log_files

__all__ = ["COMMAND", "REDACTED", "SupportInputs", "bundle_bytes", "redacted"]

REDACTED = "<redacted>"
ROOT = Path(__file__).resolve().parents[2]
LOG_FILES_KEPT = 2  # the newest two files of the rotating log: up to about 2 MiB
# a key naming one of these holds a secret (``_file``/``_path`` keys name where it is)
_SECRET_ENDINGS = ("password", "passwd", "passphrase", "secret", "token", "key")
_PATH_SUFFIXES = ("_file", "_path", ".file", ".path", "_dir", "_folder")
_PEM = re.compile(r"-----BEGIN [A-Z ]+-----")
_SECRET_QUERY = re.compile(r"pass|secret|token|key|pin", re.IGNORECASE)


@dataclass(frozen=True)
class SupportInputs:
    """What ``main.py`` hands the command: the folder, its tools (None when the settings
    could not be read: ``settings_error`` says why by code), where ``--out`` may go, the
    audit head through the visitor file's own adapter (raises AdmissionError when the file
    does not open with the key at hand), and the native engines' versions."""

    data_dir: Path
    settings_file: Path
    tools: Tools | None
    settings_error: str | None
    outputs: OutputGuard
    audit_head: Callable[[], AuditHead]
    file_size: Callable[[], int | None]  # None: no file of its own (a server desk, none yet)
    engines: Callable[[], Mapping[str, str]]


# -- redaction ------------------------------------------------------------------------
def _secret_key(key: str) -> bool:
    name = key.lower()
    if name.endswith(_PATH_SUFFIXES):
        return False
    words = re.split(r"[^a-z0-9]+", name)  # "database.password", "api_key", "sslpassword"
    return any(w == "pin" or w.endswith(_SECRET_ENDINGS) for w in words)


def _url_without_secrets(text: str) -> str:
    """``text`` with a URL's password and secret query values redacted."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return text
    if not parts.scheme or not parts.netloc:
        return text
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":" + REDACTED
        netloc = f"{userinfo}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if _SECRET_QUERY.search(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _conninfo_without_secrets(text: str) -> str:
    """A libpq ``key=value`` connection string's ``password=...`` redacted."""
    return re.sub(r"(password\s*=\s*)('[^']*'|\S+)", rf"\g<1>{REDACTED}", text, flags=re.I)


def redacted(value: Any, key: str = "") -> Any:
    """``value`` (a settings file's JSON) without its secrets (see the module's doc)."""
    if isinstance(value, Mapping):
        return {str(k): redacted(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v, key) for v in value]
    if isinstance(value, str):
        if value and (_secret_key(key) or _PEM.search(value)):
            return REDACTED
        return _conninfo_without_secrets(_url_without_secrets(value))
    if _secret_key(key) and value not in (None, False, 0):
        return REDACTED
    return value


def _settings_member(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"file": path.name, "present": False}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        # not shown: a broken file might hold a secret anywhere
        return {"file": path.name, "present": True, "readable": False, "why": type(exc).__name__}
    return {"file": path.name, "present": True, "readable": True, "values": redacted(data)}


# -- versions, platform, devices, audit ------------------------------------------------
def _requirements() -> list[str]:
    path = ROOT / "requirements.txt"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    names = []
    for line in lines:
        found = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==", line)
        if found:
            names.append(found[1])
    return names


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _desk_version() -> str | None:
    version = _installed("admission-desk")
    if version is not None:
        return version
    import tomllib

    try:
        with (ROOT / "pyproject.toml").open("rb") as project:
            return str(tomllib.load(project)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return None


def _versions(inputs: SupportInputs) -> dict[str, Any]:
    try:
        engines = dict(inputs.engines())
    except (ImportError, OSError, AdmissionError) as exc:
        engines = {"error": type(exc).__name__}
    return {
        "desk": _desk_version(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "frozen": bool(getattr(sys, "frozen", False)),
        "engines": engines,
        "requirements": {name: _installed(name) for name in _requirements()},
    }


def _platform(data_dir: Path) -> dict[str, Any]:
    try:
        usage = shutil.disk_usage(data_dir)
        space: dict[str, Any] = {"free_bytes": usage.free, "total_bytes": usage.total}
    except OSError as exc:
        space = {"error": type(exc).__name__}
    return {
        "system": platform.system(),
        "release": platform.release(),
        "version": platform.version(),
        "machine": platform.machine(),
        "data_folder": space,
    }


_DEVICE_SETTINGS = (
    "camera.device",
    "scanner.serial_port",
    "barcode.decoder",
    "printer.backend",
    "printer.card",
    "printer.receipt",
    "printer.leaflet",
    "printer.pdf_folder",
    "printer.job_timeout_seconds",
)


def _devices(inputs: SupportInputs) -> dict[str, Any]:
    tools = inputs.tools
    if tools is None:
        return {"settings": None, "why": inputs.settings_error}
    configured = {k: tools.settings[k] for k in _DEVICE_SETTINGS}
    backend, queue = tools.settings["printer.backend"], tools.settings["printer.card"]
    check = tools.devices.printer_check
    status = "NOT_CHECKED"
    try:  # the desk's own preflight (hardware.devices.printer_check): never a print job
        if check is not None:
            status = str(check(backend, queue))
    except (AdmissionError, OSError) as exc:
        status = f"ERROR ({getattr(exc, 'code', type(exc).__name__)})"
    return {
        "settings": redacted(configured),
        "demo": tools.demo,
        "card_printer": {"backend": backend, "queue": queue, "preflight": status},
        "camera": "configured only: no frame is taken for a support bundle",
    }


def _audit(inputs: SupportInputs) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    try:
        answer["file_bytes"] = inputs.file_size()
    except OSError as exc:
        answer["file_bytes"] = None
        answer["file_bytes_error"] = type(exc).__name__
    if inputs.tools is None:
        return {**answer, "opened": False, "why": inputs.settings_error}
    try:
        head = inputs.audit_head()
    except AdmissionError as exc:
        return {**answer, "opened": False, "why": str(exc.code)}
    return {
        **answer,
        "opened": True,
        "head": {
            "seq": head.seq,
            "digest": head.digest,
            "at": None if head.at is None else head.at.isoformat(),
        },
    }


def _json(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n").encode()


def bundle_bytes(inputs: SupportInputs, made_at: str) -> tuple[bytes, list[str]]:
    """The zip's bytes and its members' names."""
    members: dict[str, bytes] = {
        "settings.json": _json(_settings_member(inputs.settings_file)),
        "versions.json": _json(_versions(inputs)),
        "platform.json": _json(_platform(inputs.data_dir)),
        "devices.json": _json(_devices(inputs)),
        "audit.json": _json(_audit(inputs)),
    }
    for log in log_files(inputs.data_dir)[:LOG_FILES_KEPT]:
        with contextlib.suppress(OSError):
            members[f"logs/{log.name}"] = log.read_bytes()
    manifest = {
        "made_at": made_at,
        "members": sorted(members),
        "never_here": "no visitor, no name, no document number, no key, no password, no frame",
    }
    members = {"manifest.json": _json(manifest), **members}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o600 << 16
            archive.writestr(info, data)
    return buffer.getvalue(), list(members)


# -- the command ------------------------------------------------------------------------
def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_output_arguments(parser, required=True, what="the support bundle (.zip) to write")


def run(args: argparse.Namespace, inputs: SupportInputs) -> CommandResult:
    target = inputs.outputs.target(args.out, force=args.force)  # refused before any work
    now = inputs.tools.clock.now() if inputs.tools is not None else datetime.now(UTC)
    data, members = bundle_bytes(inputs, now.isoformat())
    try:
        written = inputs.outputs.write(target, data, force=args.force)
    except OSError as exc:  # a full disk, a folder gone: nothing is left behind
        return error(ExitCode.REFUSED, CliError.OUTPUT_UNWRITABLE, type(exc).__name__)
    return ExitCode.OK, {"bundle": str(written), "bytes": len(data), "members": members}


COMMAND = Command[SupportInputs](
    "support-bundle",
    "a zip for a technician: settings without secrets, versions, the log, devices, audit head",
    _arguments,
    run,
)
