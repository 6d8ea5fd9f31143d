"""Every command, with random and hostile arguments, answers with a code (STYLE.md rule 14).

The command line runs in this process (``main.run``) over one encrypted visitor file
and a folder of hostile files: a device, a pipe, a folder, a file without newlines, a
1 x 6000 image, a 144-megapixel JPEG, recordings nested too deep... For each run:

* nothing escapes but argparse's own ``SystemExit(2)`` (a usage error, answered in JSON
  with its code as well);
* the exit code is 0, 1, 2 or 3;
* what is printed is JSON, every code in it (``error``, ``errors``, ``reasons``,
  ``reason``...) is a member of a :class:`admission.codes.Code` enum, and an answer with
  an exit code other than 0 says why: an ``error`` code, or one of the refusal shapes of
  the contract (a DENY verdict, ``valid: false``, ``usable: false``...).

Paths and server URLs are drawn too: files already there (with and without
``--force``), the visitor file and its companions, device nodes, pipes, folders, names
over 255 bytes, ``..`` chains. Everything runs inside one scratch folder and can reach
nothing outside it, even as root: the commands run from a folder four levels deep in
it, every path drawn is relative and lands inside it (``..`` chains included), device
nodes are made in it (as root; never taken from /dev), and before each case every
argument - and every path or socket a drawn URL names - is resolved and asserted to lie
inside the scratch folder. ``leaflet`` and ``voucher issue`` always write to ``--out``:
printing would reach the machine's print queues. After each case the visitor file is
still an encrypted file and its marker still names it.

The suite runs ``FUZZ_EXAMPLES`` examples (about a minute). For a fault campaign::

    ADMISSION_FUZZ_EXAMPLES=10000 QT_QPA_PLATFORM=offscreen \\
        .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_cli_bounds.py

``demo`` takes no argument and ``regulation`` only an output path, and both run for
seconds: each is run once, not fuzzed. ``scan --serial`` listens until interrupted and
a camera index opens a device: neither is fuzzed (``scan --replay`` and folders of
images are). A command this file does not know yet gets random tokens.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import pkgutil
import socket
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, timedelta, timezone
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from admission.codes import all_code_enums
from admission.generators.mrz_build import build_td1, build_td3
from tests.factories import dni
from tests.hardware.mrz_support import flat_jpeg

FUZZ_EXAMPLES = int(os.environ.get("ADMISSION_FUZZ_EXAMPLES", "300"))
RAW_KEY = "5a" * 32  # a raw key: no passphrase stretching on every run
EXIT_CODES = {0, 1, 2, 3}
CODE_KEYS = ("error", "errors", "reasons", "reason", "fallback_error", "print_error")
# Refusals of the contract that carry no "error": the verdict or status says it all.
REFUSAL_SHAPES = (
    ("verdict", "DENY"),
    ("valid", False),
    ("usable", False),
    ("ok", False),
    ("synced", False),
    ("printed", False),
    ("imported", False),
)


def _all_codes() -> frozenset[str]:
    for root in ("admission", "db", "hardware", "ui"):
        package = importlib.import_module(root)
        for info in pkgutil.walk_packages(package.__path__, root + "."):
            with contextlib.suppress(Exception):  # test_catalogue reports import failures
                importlib.import_module(info.name)
    importlib.import_module("main")
    return frozenset(member.value for enum in all_code_enums() for member in enum)


@dataclass(frozen=True, repr=False)
class Desk:
    """The data folder and the hostile files the arguments point at."""

    root: Path  # the scratch folder: nothing outside it is ever named
    cwd: Path  # where the commands run, four levels below the root
    data: Path
    files: Path
    marker: bytes  # the visitor file's marker, as it was after init
    snapshots: tuple[str, ...]
    images: tuple[str, ...]
    recordings: tuple[str, ...]
    outputs: tuple[str, ...]
    sources: tuple[str, ...]
    codes: frozenset[str]
    hostile_outputs: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Desk({self.data})"


def passport(number: int) -> list[str]:
    """A valid passport of an invented adult (the ICAO specimen is refused as one)."""
    return build_td3(
        document_number=f"K{number:07d}",
        issuer="GBR",
        nationality="GBR",
        surname="SMITH",
        given_names="JOHN",
        birth_date="700101",
        expiry_date="350101",
    )


def run(argv: list[str]) -> tuple[int, str, bool]:
    """(exit code, stdout, whether argparse exited) of ``main.run(argv)``."""
    import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main.run(argv)
        except SystemExit as exit_:
            assert exit_.code == 2, (argv, exit_.code, err.getvalue()[-500:])
            return 2, out.getvalue(), True
    return code, out.getvalue(), False


def _hostile_files(root: Path) -> dict[str, tuple[str, ...]]:
    root.mkdir()
    (root / "riaj-ok.txt").write_text("# lista\n12345678Z\n" + dni(11111111) + "\n")
    (root / "riaj-dup.txt").write_text("12345678Z\n12345678Z\n" + dni(22222222) + "\n")
    (root / "riaj-long.txt").write_bytes(b"12345678Z\n" + b"9" * 5000 + b"\n")
    (root / "riaj-bad.txt").write_bytes(b"#RIAJ-SNAPSHOT 1\n#scheme: clear\n")
    with (root / "zeros.bin").open("wb") as sparse:
        sparse.truncate(8 * 1024 * 1024)
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pipe")
    (root / "folder").mkdir()
    cv2.imwrite(str(root / "sliver.png"), np.full((1, 6000, 3), 200, np.uint8))
    cv2.imwrite(str(root / "blank.png"), np.full((120, 200, 3), 200, np.uint8))
    (root / "giant.jpg").write_bytes(flat_jpeg(12000, 12000, orientation=6))
    (root / "half.jpg").write_bytes(flat_jpeg(400, 300)[:200])
    (root / "text.txt").write_text("not an image")
    frames = root / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "a.png"), np.full((240, 320, 3), 90, np.uint8))
    cv2.imwrite(str(frames / "b.png"), np.full((1, 6000, 3), 90, np.uint8))
    burst = [[c, 0.001 * i] for i, c in enumerate("\n".join(build_td1()) + "\r")]
    (root / "rec-ok.json").write_text(json.dumps(burst))
    (root / "rec-deep.json").write_text("[" * 100_000)
    (root / "rec-bad.json").write_text('[["ab", "x"]]')
    devices = [str(d) for d in device_nodes(root)]
    specials = [*devices, str(root / "missing"), str(root / "folder")]
    pipe = [str(root / "pipe")] if hasattr(os, "mkfifo") else []

    def named(*names: str) -> tuple[str, ...]:
        return tuple(str(root / n) for n in names)

    return {
        "snapshots": (
            *named("riaj-ok.txt", "riaj-dup.txt", "riaj-long.txt", "riaj-bad.txt", "zeros.bin"),
            *specials,
            *pipe,
        ),
        "images": (
            *named("sliver.png", "blank.png", "giant.jpg", "half.jpg", "text.txt", "zeros.bin"),
            *specials,
            *pipe,
        ),
        "recordings": (
            *named("rec-ok.json", "rec-deep.json", "rec-bad.json", "zeros.bin"),
            *specials,
            *pipe,
        ),
        "outputs": (
            *named("out.pdf", "folder", "missing/out.pdf", "folder/out.pdf"),
            "no-such-dir/out.pdf",
        ),
        "sources": (*named("frames", "missing", "text.txt", "blank.png", "folder"),),
    }


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desk]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("cli-bounds")))
    data = base / "data"
    cwd = base / "cwd" / "a" / "b" / "c"
    cwd.mkdir(parents=True)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        env.delenv("ADMISSION_NOW", raising=False)
        run(["init", "--data-dir", str(data)])  # a fresh folder needs init, where it exists
        files = _hostile_files(base / "files")
        run(["registry", "import", files["snapshots"][0], "--data-dir", str(data)])
        run(["admit", "--mrz", *passport(1), "--no-pdf", "--data-dir", str(data)])
        yield Desk(
            root=base,
            cwd=cwd,
            data=data,
            files=base / "files",
            marker=(data / "visitors.db.marker").read_bytes(),
            codes=_all_codes(),
            hostile_outputs=_hostile_outputs(base, cwd),
            **files,
        )


def device_nodes(folder: Path) -> list[Path]:
    """Character devices like /dev/null and /dev/zero, made in ``folder`` (mknod needs
    root; without it there are none): a command must never write over one, nor read
    one without end. They are never taken from /dev."""
    made = []
    for name, minor in (("null", 3), ("zero", 5)):
        try:
            os.mknod(folder / name, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        except (PermissionError, AttributeError):
            continue
        made.append(folder / name)
    return made


def _hostile_outputs(root: Path, cwd: Path) -> tuple[str, ...]:
    """Output paths relative to ``cwd`` that all land inside ``root``: new names, files
    already there, the visitor file and its companions, device nodes, a pipe, a socket,
    folders, links, names over 255 bytes, ``..`` chains (never more ``..`` than ``cwd``
    is deep below ``root``)."""
    victims = root / "victims"
    victims.mkdir()
    for name in ("existing.pdf", "existing.db", "existing.csv"):
        (victims / name).write_bytes(b"kept unless --force")
    devices = root / "devices"
    devices.mkdir()
    device_nodes(devices)
    if hasattr(os, "mkfifo"):
        os.mkfifo(devices / "pipe")
    # a socket's path is short (108 bytes): a deep temporary folder may have none
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(devices / "sock"))
    (devices / "folder").mkdir()
    for special in list(devices.iterdir()):
        (devices / f"link-to-{special.name}").symlink_to(special)
    (victims / "link-to-visitors.db").symlink_to(root / "data" / "visitors.db")
    up = os.path.relpath(root, cwd)  # "../../../.."
    data = [
        f"{up}/data/{name}"
        for name in (
            "visitors.db",
            "visitors.db-wal",
            "visitors.db-shm",
            "visitors.db-journal",
            "visitors.db.marker",
            "visitors.db.audit-key",
            "VISITORS.DB",
            "settings.json",
            "backups.json",
            "cards/card-00000001.pdf",
            ".",
        )
    ]
    found = [
        "new.pdf",
        "n" * 256,
        "ñ" * 128 + ".pdf",  # 256 bytes
        "x" * 251 + ".pdf",  # 255 bytes: a name
        "missing/new.pdf",
        ".",
        "..",
        f"{up}/victims/../victims/existing.pdf",
        *(f"{up}/victims/{p.name}" for p in sorted(victims.iterdir())),
        *(f"{up}/devices/{p.name}" for p in sorted(devices.iterdir())),
        *data,
        "/".join([".."] * 2) + "/b/c/chain.pdf",
        "../../../a/../../victims/chain.pdf",  # down and up again, into the root
    ]
    return tuple(found)


def _inside(desk: Desk, argv: list[str], environ: dict[str, str] | None = None) -> None:
    """Every argument of ``argv``, read as a path from where the command runs, and every
    socket folder or file a server URL names (in ``argv`` or ``environ``), lies inside
    the scratch folder: the case would otherwise not run."""
    for token in argv:
        value = token.partition("=")[2] if token.startswith("--") else token
        _assert_inside(desk, value, argv)
        if "://" in value or "host=" in value:
            _url_inside(desk, value, argv)
    for value in (environ or {}).values():
        _url_inside(desk, value, argv)


def _assert_inside(desk: Desk, value: str, argv: list[str]) -> None:
    resolved = Path(os.path.realpath(desk.cwd / value))
    assert resolved == desk.root or desk.root in resolved.parents, (argv, value, resolved)


def _url_inside(desk: Desk, url: str, argv: list[str]) -> None:
    from psycopg import Error
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except (Error, ValueError):
        return  # libpq cannot read it: nothing is reached
    for name in ("host", "hostaddr", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslcrldir"):
        for value in str(params.get(name) or "").split(","):
            if value.startswith("@"):
                raise AssertionError((argv, "an abstract socket is outside", value))
            if value.startswith(("/", "~")):
                _assert_inside(desk, value, argv)


# --- argument values ---------------------------------------------------------------------

TEXT = st.text(
    # argv can hold neither NUL nor lone surrogates from a terminal; everything else goes
    # but "/": free text never names a path outside the scratch folder (paths are drawn
    # from OUTPUT, which lands inside it)
    st.characters(exclude_categories=["Cs"], exclude_characters="\x00/"),
    max_size=40,
)
NUMBER = st.one_of(
    st.integers(-(10**25), 10**25).map(str),
    st.integers(0, 3).map(str),
    st.sampled_from(["999999999", "1000000000", "-1", "1e9", " 7 ", "٣", "0x10", "", "²"]),
    TEXT,
)
OFFSETS = [None, UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12))]
INSTANT = st.one_of(
    st.datetimes(timezones=st.sampled_from(OFFSETS)).map(lambda d: d.isoformat()),
    st.sampled_from(
        ["0001-01-01T00:00:00", "9999-12-31T23:59:59-12:00", "2026-11-28T22:00:00+01:00", "Z"]
    ),
    TEXT,
)
DATE = st.one_of(
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["0001-01-01", "9999-12-31", "1899-12-31", "2101-01-01", "2026-02-30"]),
    TEXT,
)
MRZ_CHARS = st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"), max_size=44)
MRZ = st.one_of(
    st.integers(1, 10**7 - 1).map(passport),
    st.just(build_td3()),
    st.just(build_td1()),
    st.lists(st.one_of(MRZ_CHARS, TEXT), min_size=1, max_size=3),
)


# A server's URL: hosts with empty labels, labels over 63 bytes, names over 253 bytes,
# names that are not ASCII, addresses; ports, parameters and schemes a desk refuses. The
# data folder holds no certificate, so no URL over TCP gets as far as the network; a
# socket folder is one inside the scratch folder (``server_urls(folder)``).
LABEL = st.text(st.sampled_from("abcxyz09-ñ_"), max_size=70)
URL_TEXT = TEXT.filter(lambda t: "%" not in t)  # no %2F: a drawn URL names no folder
HOST = st.one_of(
    st.lists(LABEL, max_size=6).map(".".join),
    st.integers(0, 300).map(lambda n: ".".join(["a" * 60] * (n // 61 + 1))[:n]),
    st.sampled_from(["127.0.0.1", "[::1]", "[::1", "db.casino.", "..", ".", "a..b", "-a"]),
    URL_TEXT,
)
URL_PARAMETER = st.one_of(
    st.sampled_from(
        [
            "sslmode=verify-full",
            "sslmode=disable",
            "connect_timeout=1",
            "connect_timeout=0",
            "hostaddr=127.0.0.1",
            "hostaddr=nope",
            "sslrootcert=ca.crt",
            "password=x",
            "port=70000",
            "host=a,b",
            "host={socket}",
            "application_name=desk",
        ]
    ),
    URL_TEXT.map(lambda t: f"{t}={t}"),
)


@st.composite
def server_urls(draw: st.DrawFn, socket_folder: str) -> str:
    scheme = draw(st.sampled_from(["postgresql", "postgres", "POSTGRESQL", "http", ""]))
    user = draw(st.one_of(st.just("desk1"), st.just(""), URL_TEXT))
    host = draw(HOST)
    port = draw(st.one_of(st.just(""), NUMBER.map(lambda n: f":{n}")))
    database = draw(st.one_of(st.just("admission"), st.just(""), URL_TEXT))
    query = draw(st.lists(URL_PARAMETER, max_size=3))
    url = f"{scheme}://{user}{'@' if user else ''}{host}{port}/{database}"
    if query:
        url += "?" + "&".join(query).replace("{socket}", socket_folder)
    return url


def _optional(flag: str, value: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), value.map(lambda v: [flag, v]))


def _flag(flag: str) -> st.SearchStrategy[list[str]]:
    return st.sampled_from([[], [flag]])


def _join(*parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.tuples(*parts).map(lambda drawn: [token for part in drawn for token in part])


def _document(desk: Desk) -> st.SearchStrategy[list[str]]:
    mrz = MRZ.map(lambda lines: ["--mrz", *lines])
    manual = _join(
        st.just(["--manual"]),
        _optional("--doc-type", st.one_of(st.sampled_from(["DRIVING_LICENCE", "DNI"]), TEXT)),
        _optional("--issuer", st.one_of(st.just("ESP"), TEXT)),
        _optional("--number", st.one_of(st.just(dni(33333333)), TEXT)),
        _optional("--surname", TEXT),
        _optional("--given-names", TEXT),
        _optional("--birth-date", DATE),
        _optional("--expiry-date", DATE),
        _optional("--nationality", TEXT),
        _optional("--sex", st.one_of(st.sampled_from(["F", "M", "X"]), TEXT)),
    )
    return st.one_of(mrz, manual, st.just([]))


def _strategies(desk: Desk) -> dict[str, st.SearchStrategy[list[str]]]:
    path = st.sampled_from
    doc = _document(desk)
    output = st.sampled_from(desk.outputs + desk.hostile_outputs)
    number = st.one_of(st.integers(1, 3).map(str), NUMBER)
    return {
        "init": _flag("--adopt").map(lambda rest: ["init", *rest]),  # the file exists
        "parse-mrz": _join(
            MRZ.filter(bool).map(list),
            _optional("--today", DATE),
        ).map(lambda rest: ["parse-mrz", *rest]),
        "read-document": st.lists(path(desk.images), min_size=1, max_size=3).map(
            lambda images: ["read-document", *images]
        ),
        "watch-document": _join(
            path(desk.sources).map(lambda s: [s]),
            _optional("--max-frames", NUMBER),
        ).map(lambda rest: ["watch-document", *rest]),
        "admit": _join(
            doc,
            _optional("--at", INSTANT),
            _optional("--card-type", st.one_of(st.sampled_from(["DAY", "WEEK"]), TEXT)),
            _optional("--director", TEXT),
            _flag("--exceptional"),
            st.just(["--no-pdf"]),
        ).map(lambda rest: ["admit", *rest]),
        "registry": st.one_of(
            path(desk.snapshots).map(lambda p: ["registry", "import", p]),
            st.just(["registry", "sync"]),
            st.just(["registry", "status"]),
            _join(
                st.one_of(st.just(dni(11111111)), TEXT).map(lambda i: ["--id", i]),
                _optional("--kind", st.one_of(st.sampled_from(["DNI", "NIE", "PASSPORT"]), TEXT)),
                _optional("--country", TEXT),
            ).map(lambda rest: ["registry", "check", *rest]),
        ),
        "purge": _optional("--at", INSTANT).map(lambda rest: ["purge", *rest]),
        "audit": st.just(["audit", "verify"]),
        "visitor": st.one_of(
            st.one_of(st.just("1"), st.just(dni(12345678)), NUMBER).map(
                lambda i: ["visitor", "show", i]
            ),
            _join(TEXT.map(lambda t: [t]), _optional("--limit", NUMBER)).map(
                lambda rest: ["visitor", "search", *rest]
            ),
        ),
        "verify-card": TEXT.map(lambda code: ["verify-card", code]),
        "print-card": _join(number.map(lambda n: [n]), _optional("--reason", TEXT)).map(
            lambda rest: ["print-card", *rest]
        ),
        "void-card": _join(number.map(lambda n: [n]), TEXT.map(lambda r: ["--reason", r])).map(
            lambda rest: ["void-card", *rest]
        ),
        "reprint-queue": st.just(["reprint-queue"]),
        # the file has no account: a first one needs ADMIN and a password from the
        # environment (none here, and no terminal), the others name nobody
        "account": st.one_of(
            st.just(["account", "list"]),
            _join(
                TEXT.map(lambda n: [n]),
                TEXT.map(lambda d: ["--display-name", d]),
                st.lists(st.sampled_from(["ADMIN", "CLERK", "DIRECTOR", "NOPE"]), max_size=2).map(
                    lambda roles: [t for r in roles for t in ("--role", r)]
                ),
                _optional("--user", TEXT),
            ).map(lambda rest: ["account", "add", *rest]),
            TEXT.map(lambda n: ["account", "passwd", n]),
            TEXT.map(lambda n: ["account", "disable", n]),
        ),
        # always an --out: printing would reach the machine's print queues, outside
        # the scratch folder
        "leaflet": _join(output.map(lambda o: ["--out", o]), _flag("--force")).map(
            lambda rest: ["leaflet", *rest]
        ),
        "backup": _join(output.map(lambda o: ["--out", o]), _flag("--force")).map(
            lambda rest: ["backup", *rest]
        ),
        "db": _join(
            st.just(["db", "copy-to-server", "--url"]),
            server_urls(str(desk.root / "devices")).map(lambda u: [u]),
            _optional("--batch", NUMBER),
        ),
        "scan": _join(
            st.lists(path(desk.recordings), min_size=1, max_size=2).map(
                lambda recs: ["--replay", *recs]
            ),
            _optional("--baud", NUMBER),
            _flag("--admit"),
        ).map(lambda rest: ["scan", *rest]),
        "voucher": st.one_of(
            _join(
                doc,
                _optional("--card-type", TEXT),
                output.map(lambda o: ["--out", o]),  # never the receipt printer's queue
                _flag("--force"),
            ).map(lambda rest: ["voucher", "issue", *rest]),
            _join(doc, number.map(lambda n: [n]), st.just(["--no-pdf"])).map(
                lambda rest: ["voucher", "exchange", *rest]
            ),
            _join(number.map(lambda n: [n]), TEXT.map(lambda r: ["--reason", r])).map(
                lambda rest: ["voucher", "cancel", *rest]
            ),
            _flag("--closing").map(lambda rest: ["voucher", "open", *rest]),
        ),
    }


# Seconds a run each: demo (no argument, test_demo_answers_once) and regulation (its one
# argument, an unwritable --out, is in test_the_testers_findings).
NOT_FUZZED = {"demo", "regulation"}


def _generic(name: str) -> st.SearchStrategy[list[str]]:
    """A command this file does not know yet: its name and random tokens."""
    tokens = st.one_of(TEXT, NUMBER, st.sampled_from(["--at", "--out", "--reason"]))
    return st.lists(tokens, max_size=4).map(lambda rest: [name, *rest])


def _commands() -> list[str]:
    from ui.cli.commands import FILE_COMMANDS, TOOL_COMMANDS

    return sorted((set(FILE_COMMANDS) | set(TOOL_COMMANDS)) - NOT_FUZZED)


@st.composite
def argv_of(draw: st.DrawFn, desk: Desk) -> list[str]:
    known = _strategies(desk)
    name = draw(st.sampled_from(_commands()))
    strategy = known[name] if name in known else _generic(name)
    argv = draw(strategy)
    argv += draw(_flag("--demo"))
    return [*argv, "--data-dir", str(desk.data)]


# --- the checks ---------------------------------------------------------------------------


def _answers(printed: str) -> list[Any]:
    """The JSON printed: one document, or one per line (``scan``)."""
    if not printed.strip():
        return []
    try:
        return [json.loads(printed)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in printed.splitlines() if line.strip()]


def _codes_in(answer: Any) -> Iterator[str]:
    if isinstance(answer, list):
        for item in answer:
            yield from _codes_in(item)
        return
    if not isinstance(answer, dict):
        return
    for key, value in answer.items():
        if key in CODE_KEYS:
            values = value if isinstance(value, list) else [value]
            yield from (v for v in values if isinstance(v, str) and v)  # "": none
        elif isinstance(value, dict | list):
            yield from _codes_in(value)


def _says_why(answer: Any) -> bool:
    if isinstance(answer, list):
        return bool(answer) and all(_says_why(item) for item in answer)
    if not isinstance(answer, dict):
        return False
    if answer.get("error") or answer.get("errors") or answer.get("reasons"):
        return True
    if answer.get("reason") or answer.get("code"):
        return True
    return any(answer.get(key, object()) == value for key, value in REFUSAL_SHAPES)


def check(desk: Desk, argv: list[str], environ: dict[str, str] | None = None) -> None:
    _inside(desk, argv, environ)  # before anything runs
    code, printed, usage = run(argv)
    with (desk.data / "visitors.db").open("rb") as record:
        head = record.read(16)
    assert not head.startswith(b"%PDF") and head != b"SQLite format 3\x00", (argv, head)
    marker = json.loads((desk.data / "visitors.db.marker").read_bytes())  # may be updated,
    assert marker["file_id"] == json.loads(desk.marker)["file_id"], argv  # never replaced
    assert code in EXIT_CODES, (argv, code)
    answers = _answers(printed)
    if usage:  # argparse's own refusals answer in JSON too, with a code
        assert answers and all(a.get("error") in desk.codes for a in answers), (argv, printed)
        return
    for answer in answers:
        unknown = set(_codes_in(answer)) - desk.codes
        assert not unknown, (argv, unknown, answer)
    if code != 0:
        assert answers, (argv, code, "nothing printed")
        assert any(_says_why(a) for a in answers), (argv, code, answers)


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_every_command_answers_hostile_arguments_with_a_code(
    desk: Desk, data: st.DataObject
) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        # a relative path drawn for --out (``backup --out 0``) is written here, in the
        # scratch folder, not in the folder the tests were started from
        env.chdir(desk.cwd)
        check(desk, data.draw(argv_of(desk), label="argv"))


@settings(
    max_examples=max(FUZZ_EXAMPLES // 3, 30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_hostile_server_url_answers_with_a_code(desk: Desk, data: st.DataObject) -> None:
    """As ``db copy-to-server --url`` and as ADMISSION_DATABASE_URL under a command:
    a host with an empty or long label, a name over 253 bytes... was a traceback."""
    url = data.draw(server_urls(str(desk.root / "devices")), label="url")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        env.chdir(desk.cwd)
        if data.draw(st.booleans(), label="in the environment"):
            env.setenv("ADMISSION_DATABASE_URL", url)
            argv = ["audit", "verify", "--data-dir", str(desk.data)]
            check(desk, argv, {"ADMISSION_DATABASE_URL": url})
        else:
            check(desk, ["db", "copy-to-server", "--url", url, "--data-dir", str(desk.data)])


def test_the_fuzz_cannot_name_a_path_outside_its_scratch_folder(desk: Desk) -> None:
    """The guard of every case sees an escape: an absolute path elsewhere, one ``..``
    too many, a link out, a URL's socket folder elsewhere."""
    (desk.root / "out-link").symlink_to("/")
    up = os.path.relpath(desk.root, desk.cwd)
    for argv in (
        ["leaflet", "--out", "/etc/passwd"],
        ["leaflet", "--out", f"{up}/../escaped.pdf"],
        ["leaflet", f"--out={up}/out-link/etc/passwd"],
        ["db", "copy-to-server", "--url", "postgresql:///adm?host=/var/run/postgresql"],
        ["db", "copy-to-server", "--url", "postgresql://desk1@%2Fvar%2Frun/adm"],
    ):
        with pytest.raises(AssertionError):
            _inside(desk, argv)
    with pytest.raises(AssertionError):
        _inside(desk, ["audit", "verify"], {"ADMISSION_DATABASE_URL": "postgres://@%40x/a"})
    for drawn in desk.hostile_outputs + desk.outputs:
        _inside(desk, ["leaflet", "--out", drawn])  # every path the fuzz draws lands inside


@pytest.mark.parametrize(
    "argv",
    [
        ["registry", "import", "{files}/zero"],  # a device without end, made in the scratch
        ["registry", "import", "{files}/pipe"],
        ["registry", "import", "{files}/zeros.bin"],
        ["print-card", "12345678901234567890123"],
        ["void-card", "12345678901234567890123", "--reason", "x"],
        ["voucher", "cancel", "12345678901234567890123", "--reason", "x"],
        ["admit", "--mrz", *build_td3(), "--at", "0001-01-01T00:00:00"],
        ["admit", "--mrz", *build_td3(), "--at", "9999-12-31T23:59:59-12:00"],
        ["parse-mrz", "X", "--today", "0001-01-01"],
        ["scan", "--replay", "{files}/zero"],
        ["scan", "--replay", "{files}/rec-deep.json"],
        ["watch-document", "{files}/nonexistent", "--max-frames", "0"],
        ["regulation", "--out", "{files}/folder"],
        ["regulation", "--out", "{root}/data/visitors.db", "--force"],
        ["backup", "--out", "{root}/" + "b" * 256],
        ["backup", "--out", "{root}/data/visitors.db-wal", "--force"],
        ["leaflet", "--out", "{files}/null", "--force"],
        ["db", "copy-to-server", "--url", "postgresql://desk1@a..b/admission"],
        ["db", "copy-to-server", "--url", "postgresql://desk1@" + "a" * 64 + ".es/admission"],
        ["db", "copy-to-server", "--url", "postgresql://desk1@" + "a." * 127 + "es/admission"],
        ["voucher", "exchange", "--manual", "--birth-date", "2000-01-01", "1", "--no-pdf"],
    ],
)
def test_the_testers_findings(desk: Desk, argv: list[str]) -> None:
    """The inputs that gave tracebacks, hung or grew without bound, one by one."""
    if "{files}/pipe" in argv and not hasattr(os, "mkfifo"):
        pytest.skip("named pipes are POSIX")
    if (
        any(a in {"{files}/zero", "{files}/null"} for a in argv)
        and not (desk.files / "zero").exists()
    ):
        pytest.skip("a device node is made in the scratch folder by root only")
    argv = [a.replace("{files}", str(desk.files)).replace("{root}", str(desk.root)) for a in argv]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        env.chdir(desk.cwd)
        check(desk, [*argv, "--data-dir", str(desk.data)])


@pytest.mark.parametrize(
    "host", ["a..b", ".casino", "x" * 64 + ".casino", ".".join(["x" * 60] * 5)]
)
def test_a_server_host_the_resolver_cannot_take_is_a_code(tmp_path: Path, host: str) -> None:
    """With the desk's certificates in place the URL goes as far as the look-up of its
    host, whose refusal of such a name (UnicodeError, before any packet) was a
    traceback. The certificates are dummies and the names cannot be looked up: nothing
    leaves this machine."""
    certs = tmp_path / "data" / "postgresql"
    certs.mkdir(parents=True)
    for name in ("root.crt", "postgresql.crt", "postgresql.key"):
        (certs / name).write_text("-----BEGIN TEST-----\n", encoding="ascii")
        (certs / name).chmod(0o600)
    url = f"postgresql://desk1@{host}/admission?connect_timeout=1"
    codes = _all_codes()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        env.setenv("ADMISSION_AUDIT_KEY", "7b" * 32)
        env.chdir(tmp_path)
        run(["init", "--data-dir", str(tmp_path / "data")])
        answers = [run(["db", "copy-to-server", "--url", url, "--data-dir", "data"])]
        env.setenv("ADMISSION_DATABASE_URL", url)
        answers.append(run(["audit", "verify", "--data-dir", "data"]))
    for code, printed, _usage in answers:
        answer = json.loads(printed)
        assert code in EXIT_CODES and answer["error"] == "PG_TARGET_BAD_HOST", answer
        assert answer["error"] in codes


def test_demo_answers_once(tmp_path: Path) -> None:
    """``demo`` has no argument to fuzz: one run, the same checks."""
    codes = _all_codes()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        run(["init", "--data-dir", str(tmp_path)])
        code, printed, usage = run(["demo", "--data-dir", str(tmp_path)])
    assert code in EXIT_CODES and not usage
    answers = _answers(printed)
    assert answers and not set(_codes_in(answers)) - codes


def test_a_batch_with_a_sliver_and_a_giant_answers_per_image(desk: Desk) -> None:
    images = [str(desk.files / n) for n in ("sliver.png", "giant.jpg", "blank.png")]
    code, printed, _usage = run(["read-document", *images, "--data-dir", str(desk.data)])
    reasons = [answer["reason"] for answer in json.loads(printed)]
    assert code == 1 and reasons == ["IMAGE_TOO_SMALL", "IMAGE_TOO_LARGE", "NO_MRZ"]


def test_a_manual_voucher_exchange_keeps_both_numbers(tmp_path: Path) -> None:
    """The voucher's number and the document's ``--number`` used to share one argument."""
    person = ["--manual", "--number", dni(44444444), "--surname", "GARCIA"]
    person += ["--birth-date", "1980-01-01", "--data-dir", str(tmp_path)]
    (tmp_path / "riaj.txt").write_text("00000000T\n")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ADMISSION_DB_KEY", RAW_KEY)
        run(["init", "--data-dir", str(tmp_path)])
        run(["registry", "import", str(tmp_path / "riaj.txt"), "--data-dir", str(tmp_path)])
        code, printed, _ = run(["voucher", "issue", *person, "--out", str(tmp_path / "v.pdf")])
        assert code == 0 and json.loads(printed)["voucher"]["number"] == 1
        code, printed, _ = run(["voucher", "exchange", "1", "--no-pdf", *person])
    assert code == 0 and json.loads(printed)["card_number"] == 1
