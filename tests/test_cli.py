"""The command line is a stable contract: run it as operators do.

Most tests run it in this process (``main.run``: parse, build the context, dispatch);
the contract tests - exit codes, JSON on stdout, no traceback, a killed process, the
demo's own folder - run real processes.

A file made by ``init`` has no account: operator acts are recorded under ``cli`` and a
director's decision is refused. Tests of director decisions create accounts first
(:func:`create_accounts`: an administrator, a clerk signed in through the environment,
and a game director), with cheap argon2 costs in this process."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from admission.generators.mrz_build import build_td1, build_td3
from tests.factories import dni

ROOT = Path(__file__).resolve().parents[1]
KEY = "correct horse battery staple"
PARSE_KEYS = {
    "valid",
    "format",
    "document_code",
    "issuer",
    "document_number",
    "personal_number",
    "id_number",
    "surname",
    "given_names",
    "nationality",
    "birth_date",
    "expiry_date",
    "sex",
    "corrections",
    "errors",
    "unknown_code_fields",
    "specimen",
    "specimen_reason",
}
# a passport of a real state (the ICAO example below is a Utopia specimen: never admitted)
PASSPORT = build_td3(
    document_number="K1234567",
    issuer="GBR",
    nationality="GBR",
    surname="SMITH",
    given_names="JOHN",
    birth_date="700101",
    expiry_date="350101",
)
# the accounts of create_accounts: (user name, roles, password)
ADMIN = ("jefa", ["ADMIN"], "admin-pass-1")
CLERK = ("ana", ["CLERK"], "clerk-pass-1")
DIRECTOR = ("dora", ["DIRECTOR"], "director-pass-1")
SIGN_IN_VARS = (
    "ADMISSION_USER",
    "ADMISSION_PASSWORD",
    "ADMISSION_DIRECTOR_PASSWORD",
    "ADMISSION_NEW_PASSWORD",
)
CHEAP_ARGON2 = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}  # tests only
ICAO_TD3 = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
]


@pytest.fixture(autouse=True)
def quick_sign_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Cheap argon2 costs for the accounts made in this process (the product's profile
    renews such a hash at the next sign-in of a real process), and no sign-in variable
    of the shell running the tests."""
    from db import accounts

    monkeypatch.setattr(accounts, "Argon2Hasher", partial(accounts.Argon2Hasher, **CHEAP_ARGON2))
    for name in SIGN_IN_VARS:
        monkeypatch.delenv(name, raising=False)
    yield


def create_accounts(data_dir: Path, env: pytest.MonkeyPatch) -> None:
    """The first account (an administrator, no sign-in), then a clerk and a game
    director made by it; then the clerk signs in through the environment, and the
    director's password is there for ``--director dora``."""
    name, roles, password = ADMIN
    env.setenv("ADMISSION_NEW_PASSWORD", password)
    code, out = cli("account", "add", name, "--display-name", "Jefa", "--role", *roles,
                    data_dir=data_dir)  # fmt: skip
    assert code == 0, out
    env.setenv("ADMISSION_PASSWORD", password)
    for name, roles, password in (CLERK, DIRECTOR):
        env.setenv("ADMISSION_NEW_PASSWORD", password)
        role_args = [token for role in roles for token in ("--role", role)]
        code, out = cli("account", "add", name, "--display-name", name.title(), *role_args,
                        "--user", ADMIN[0], data_dir=data_dir)  # fmt: skip
        assert code == 0, out
    env.delenv("ADMISSION_NEW_PASSWORD")
    env.setenv("ADMISSION_USER", CLERK[0])
    env.setenv("ADMISSION_PASSWORD", CLERK[2])
    env.setenv("ADMISSION_DIRECTOR_PASSWORD", DIRECTOR[2])


@pytest.fixture
def accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tmp_path``'s file with the accounts of :func:`create_accounts`, the clerk signed in."""
    create_accounts(tmp_path, monkeypatch)


def cli(
    *args: str, data_dir: Path | None = None, key: str | None = KEY, clock_override: bool = False
) -> tuple[int, object]:
    """Run the command line in this process, as ``main.py`` does: parse, build the
    context, dispatch, print JSON. Returns (exit code, parsed JSON or None).
    ``clock_override`` allows an ``--at`` in the future (ADMISSION_CLOCK_OVERRIDE=1).
    On a ``data_dir`` without a visitor file, ``init`` runs first."""
    import main

    argv = [*args, *(["--data-dir", str(data_dir)] if data_dir is not None else [])]
    if data_dir is not None and args[0] != "init":
        init_file(data_dir, key)
    saved = os.environ.pop("ADMISSION_DB_KEY", None)
    saved_override = os.environ.pop("ADMISSION_CLOCK_OVERRIDE", None)
    if key is not None:
        os.environ["ADMISSION_DB_KEY"] = key
    if clock_override:
        os.environ["ADMISSION_CLOCK_OVERRIDE"] = "1"
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            try:
                code = main.run(argv)
            except SystemExit as exit_:  # argparse's usage errors
                code = int(exit_.code or 0)
    finally:
        os.environ.pop("ADMISSION_DB_KEY", None)
        os.environ.pop("ADMISSION_CLOCK_OVERRIDE", None)
        if saved is not None:
            os.environ["ADMISSION_DB_KEY"] = saved
        if saved_override is not None:
            os.environ["ADMISSION_CLOCK_OVERRIDE"] = saved_override
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else None


def import_register(snapshot: Path, data_dir: Path) -> tuple[int, object]:
    """``registry import`` as the game director, whose act it is once the file has
    accounts (``ui.cli.access``), whoever the environment signs in for the other
    commands; on a file without accounts, as anybody."""
    saved = {name: os.environ.get(name) for name in ("ADMISSION_USER", "ADMISSION_PASSWORD")}
    if saved["ADMISSION_USER"]:
        os.environ["ADMISSION_USER"], os.environ["ADMISSION_PASSWORD"] = DIRECTOR[0], DIRECTOR[2]
    try:
        return cli("registry", "import", str(snapshot), data_dir=data_dir)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def init_file(data_dir: Path, key: str | None = KEY) -> None:
    """Create the visitor file once, as the first-run wizard or ``init`` would: no other
    command creates it (art. 20.4)."""
    import main

    if (
        key is None
        or (data_dir / "visitors.db").exists()
        or (data_dir / "visitors.db").is_symlink()
    ):
        return
    saved = os.environ.get("ADMISSION_DB_KEY")
    os.environ["ADMISSION_DB_KEY"] = key
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main.run(["init", "--data-dir", str(data_dir)]) == 0
    finally:
        if saved is None:
            os.environ.pop("ADMISSION_DB_KEY", None)
        else:
            os.environ["ADMISSION_DB_KEY"] = saved


def cli_process(
    *args: str, data_dir: Path | None = None, key: str | None = KEY
) -> tuple[int, object]:
    """The same as a real process, for the contract: exit code, JSON on stdout, no
    traceback on stderr. The visitor file is created first, as ``cli`` does."""
    if data_dir is not None and args[0] != "init":
        init_file(data_dir, key)
    env = {k: v for k, v in os.environ.items() if k != "ADMISSION_DB_KEY"}
    if key is not None:
        env["ADMISSION_DB_KEY"] = key
    argv = [sys.executable, str(ROOT / "main.py"), *args]
    if data_dir is not None:
        argv += ["--data-dir", str(data_dir)]
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None


def spanish_dni_mrz(
    number: int, birth: str = "800517", surname: str = "GARCIA LOPEZ", expiry: str = "350101"
) -> list[str]:
    return build_td1(
        document_code="ID",
        issuer="ESP",
        document_number="BAA123456",
        optional_data_1=dni(number),
        birth_date=birth,
        expiry_date=expiry,
        nationality="ESP",
        sex="F",
        surname=surname,
        given_names="ANA",
    )


def test_parse_mrz_prints_the_contract_fields() -> None:
    code, out = cli("parse-mrz", *ICAO_TD3, "--today", "2010-01-01")
    assert code == 0 and isinstance(out, dict)
    assert set(out) == PARSE_KEYS
    assert out["format"] == "TD3" and out["document_number"] == "L898902C3"
    assert out["birth_date"] == "1974-08-12" and out["expiry_date"] == "2012-04-15"
    assert out["surname"] == "ERIKSSON" and out["given_names"] == "ANNA MARIA"
    assert out["id_number"] == "L898902C3" and out["errors"] == []
    assert out["specimen"] is True and out["specimen_reason"] == "SPECIMEN_STATE"  # Utopia


def test_parse_mrz_spanish_dni_reports_the_dni_as_id_number() -> None:
    code, out = cli("parse-mrz", *spanish_dni_mrz(12345678), "--today", "2026-11-29")
    assert code == 0 and isinstance(out, dict)
    assert out["document_number"] == "BAA123456" and out["id_number"] == "12345678Z"


def test_parse_mrz_refuses_a_garbled_mrz_with_codes() -> None:
    bad = [ICAO_TD3[0], ICAO_TD3[1][:9] + "7" + ICAO_TD3[1][10:]]  # wrong check digit
    code, out = cli("parse-mrz", *bad)
    assert code == 1 and isinstance(out, dict)
    assert out["valid"] is False and "CHECK_DOCUMENT_NUMBER" in out["errors"]
    code, out = cli("parse-mrz", "hello")
    assert code == 1 and isinstance(out, dict) and out["errors"]


def test_admission_cycle_on_the_encrypted_file(tmp_path: Path, accounts: None) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text(f"# RIAJ casino scope\n{dni(11111111)}\n", encoding="utf-8")
    code, out = import_register(snapshot, tmp_path)
    assert code == 0, out

    at = "2026-11-28T22:00:00+01:00"
    code, out = cli(
        "admit",
        "--mrz",
        *spanish_dni_mrz(12345678),
        "--at",
        at,
        "--card-type",
        "WEEK",
        data_dir=tmp_path,
        clock_override=True,
    )
    assert code == 0 and isinstance(out, dict), out
    assert out["verdict"] == "ADMIT" and out["reasons"] == []
    assert out["file_number"] == 1 and out["card_number"] == 1
    pdf = Path(out["card_pdf"])
    assert pdf.read_bytes().startswith(b"%PDF")

    code, out = cli(
        "admit",
        "--mrz",
        *spanish_dni_mrz(11111111),
        "--at",
        at,
        data_dir=tmp_path,
        clock_override=True,
    )
    assert code == 1 and isinstance(out, dict)
    assert out["verdict"] == "DENY" and out["reasons"] == ["REGISTRY_LISTED"]
    assert out["card_number"] is None

    code, out = cli(
        "admit",
        "--mrz",
        *spanish_dni_mrz(22222222, birth="100101"),
        "--at",
        at,
        data_dir=tmp_path,
        clock_override=True,
    )
    assert (code, out["reasons"]) == (1, ["MINOR"])  # type: ignore[index]

    code, out = cli(
        "admit",
        "--manual",
        "--doc-type",
        "DRIVING_LICENCE",
        "--issuer",
        "ESP",
        "--number",
        dni(33333333),
        "--surname",
        "MUÑOZ PEÑA",
        "--given-names",
        "JOSÉ",
        "--birth-date",
        "1970-03-04",
        "--at",
        at,
        data_dir=tmp_path,
        clock_override=True,
    )
    assert code == 0 and out["card_number"] == 2  # type: ignore[index]

    code, out = cli(
        "admit",
        "--manual",
        "--number",
        "12345678A",
        "--surname",
        "X",
        "--birth-date",
        "1970-03-04",
        data_dir=tmp_path,
    )
    assert code == 1 and "DNI_CHECK_LETTER" in out["errors"]  # type: ignore[index]

    code, out = cli("visitor", "show", dni(12345678), data_dir=tmp_path)
    assert code == 0 and isinstance(out, dict)
    assert out["surname"] == "GARCIA LOPEZ" and len(out["visits"]) == 1
    assert out["cards"][0]["number"] == 1

    code, out = cli("visitor", "search", "garcía", data_dir=tmp_path)
    assert sorted(v["file_number"] for v in out["visitors"]) == [1, 2, 3]  # type: ignore[index]
    code, out = cli("visitor", "search", "munoz pena", data_dir=tmp_path)
    assert [v["surname"] for v in out["visitors"]] == ["MUÑOZ PEÑA"]  # type: ignore[index]

    code, out = cli("audit", "verify", data_dir=tmp_path)
    assert code == 0 and out["ok"] is True  # type: ignore[index]
    from db.keys import DbKey
    from db.store import SqlCipherStore

    with SqlCipherStore.open(tmp_path / "visitors.db", DbKey.from_text(KEY)) as store:
        actions = [e.action for e in store.audit_entries()]
        raw_details = repr([e.details for e in store.audit_entries()])
    assert actions.count("VISITOR_QUERY") == 1 and actions.count("VISITOR_SEARCH") == 2
    assert "garc" not in raw_details.lower() and "munoz" not in raw_details.lower()

    # Seven months later everything of that night is gone, PDFs included.
    code, out = cli(
        "purge", "--at", "2027-06-30T12:00:00+02:00", data_dir=tmp_path, clock_override=True
    )
    # seven months with no event: the clock check refuses, audited, until the director
    # confirms the date after the closure
    assert code == 1 and out["error"] == "SUSPECT_CLOCK"  # type: ignore[index]
    code, out = cli(
        "purge",
        "--at",
        "2027-06-30T12:00:00+02:00",
        "--confirm-clock",
        "--director",
        DIRECTOR[0],
        data_dir=tmp_path,
        clock_override=True,
    )
    assert code == 0 and out["visits"] == 4 and out["visitors"] == 4  # type: ignore[index]
    assert not pdf.exists()
    code, out = cli("visitor", "show", dni(12345678), data_dir=tmp_path)
    assert code == 1 and out["error"] == "NOT_FOUND"  # type: ignore[index]


def test_wrong_key_is_refused_and_the_file_is_untouched(tmp_path: Path) -> None:
    cli_process("admit", "--mrz", *PASSPORT, "--no-pdf", data_dir=tmp_path)
    db = tmp_path / "visitors.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    code, out = cli_process("audit", "verify", data_dir=tmp_path, key="not the key")
    assert code == 3 and out["error"] == "WRONG_KEY"  # type: ignore[index]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_no_key_at_all_gives_a_clear_error(tmp_path: Path) -> None:
    init_file(tmp_path)  # a file that exists, then no key to open it
    code, out = cli_process("audit", "verify", data_dir=tmp_path, key=None)
    assert code == 3 and out["error"] in {"NO_KEY", "KEYRING_FAILED"}  # type: ignore[index]


def test_bad_arguments_get_codes_not_tracebacks(tmp_path: Path) -> None:
    from admission.catalogue import text

    code, out = cli_process("admit", "--mrz", *PASSPORT, "--at", "yesterday", data_dir=tmp_path)
    assert code == 2 and out["error"] == "BAD_INSTANT"  # type: ignore[index]
    # the words for people come from the one catalogue, Spanish first
    assert out["message"] == text("BAD_INSTANT", "es") != out["message_en"]  # type: ignore[index]
    assert out["message_en"] == text("BAD_INSTANT", "en") != "BAD_INSTANT"  # type: ignore[index]
    code, out = cli_process("admit", data_dir=tmp_path)
    assert code == 2 and out["error"] == "USAGE"  # type: ignore[index]
    # argparse's own refusals answer in JSON too, with the code the argument's type named
    code, out = cli_process("print-card", "1" * 23, data_dir=tmp_path)
    assert code == 2 and out["error"] == "BAD_NUMBER"  # type: ignore[index]
    code, out = cli_process("no-such-command", data_dir=tmp_path)
    assert code == 2 and out["error"] == "USAGE"  # type: ignore[index]
    code, out = cli_process("admit", "--mrz", *PASSPORT, "--card-type", "NOPE", data_dir=tmp_path)
    assert code == 1 and out["error"] == "UNKNOWN_CARD_TYPE"  # type: ignore[index]


@pytest.mark.slow
def test_an_instant_in_the_future_is_refused_unless_overridden(
    tmp_path: Path, accounts: None
) -> None:
    # a year typed wrong must not run the desk (and its purge) a year ahead (art. 20.4)
    ahead = "2099-01-01T12:00:00+01:00"
    init_file(tmp_path)
    before = (tmp_path / "visitors.db").read_bytes()
    code, out = cli("purge", "--at", ahead, data_dir=tmp_path)
    assert (tmp_path / "visitors.db").read_bytes() == before  # refused before opening it
    assert code == 2 and out["error"] == "FUTURE_INSTANT"  # type: ignore[index]
    code, out = cli("admit", "--mrz", *PASSPORT, "--at", ahead, data_dir=tmp_path)
    assert code == 2 and out["error"] == "FUTURE_INSTANT"  # type: ignore[index]
    code, out = cli(
        "purge",
        "--at",
        ahead,
        "--confirm-clock",
        "--director",
        DIRECTOR[0],
        data_dir=tmp_path,
        clock_override=True,
    )
    assert code == 0 and out["cutoff"].startswith("2098-07-01")  # type: ignore[index]


def test_killing_admissions_midway_leaves_no_gap_and_no_half_visit(tmp_path: Path) -> None:
    """SIGKILL ``admit`` processes at random moments, then check the file is whole."""
    rng = random.Random(5)
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert cli("registry", "import", str(snapshot), data_dir=tmp_path)[0] == 0
    env = dict(os.environ, ADMISSION_DB_KEY=KEY)
    completed = killed = 0
    for index in range(16):
        lines = build_td3(
            document_number=f"K{index:07d}",
            issuer="GBR",
            nationality="GBR",
            birth_date="700101",
            expiry_date="350101",
            personal_number="",
        )
        proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "main.py"),
                "admit",
                "--mrz",
                *lines,
                "--data-dir",
                str(tmp_path),
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 1.2))
        if proc.poll() is None:
            proc.kill()
            killed += 1
        else:
            completed += 1
        proc.wait()
    from db.keys import DbKey
    from db.store import SqlCipherStore

    store = SqlCipherStore.open(tmp_path / "visitors.db", DbKey.from_text(KEY), create=False)
    conn = store.connection
    numbers = [r[0] for r in conn.execute("SELECT number FROM cards ORDER BY number")]
    orphans = conn.execute(
        "SELECT count(*) FROM cards c LEFT JOIN visits v ON v.visit_id = c.visit_id "
        "WHERE v.visit_id IS NULL"
    ).fetchone()[0]
    admitted_without_card = conn.execute(
        "SELECT count(*) FROM visits v WHERE v.verdict = 'ADMIT' AND NOT EXISTS "
        "(SELECT 1 FROM cards c WHERE c.visit_id = v.visit_id)"
    ).fetchone()[0]
    assert store.verify().ok
    store.close()
    assert numbers == list(range(1, len(numbers) + 1))
    assert orphans == 0 and admitted_without_card == 0
    assert killed > 0 or completed == 16


def test_printing_voiding_and_the_reprint_queue(tmp_path: Path, accounts: None) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert import_register(snapshot, tmp_path)[0] == 0
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(44444444), "--no-pdf", data_dir=tmp_path)
    assert code == 0 and out["card_number"] == 1  # type: ignore[index]
    code, out = cli("reprint-queue", data_dir=tmp_path)
    assert [c["card_number"] for c in out["cards"]] == [1]  # type: ignore[index]

    code, out = cli("print-card", "1", data_dir=tmp_path)  # default: the PDF-folder printer
    assert code == 0 and out["printed"] is True  # type: ignore[index]
    assert (tmp_path / "cards" / out["job_id"]).read_bytes().startswith(b"%PDF")  # type: ignore[index]
    assert cli("reprint-queue", data_dir=tmp_path)[1] == {"cards": []}

    code, out = cli("print-card", "1", data_dir=tmp_path)
    assert code == 1 and out["error"] == "REPRINT_NEEDS_REASON"  # type: ignore[index]
    code, out = cli(
        "print-card", "1", "--reason", "tarjeta dañada", "--director", "dora", data_dir=tmp_path
    )
    assert code == 0 and out["printed"] is True  # type: ignore[index]

    code, out = cli(
        "void-card", "1", "--reason", "error de tipo", "--director", "dora", data_dir=tmp_path
    )
    assert (code, out["status"]) == (0, "VOIDED")  # type: ignore[index]
    code, out = cli(
        "print-card", "1", "--reason", "otra vez", "--director", "dora", data_dir=tmp_path
    )
    assert code == 1 and out["error"] == "CARD_VOIDED"  # type: ignore[index]
    code, out = cli("visitor", "show", "1", data_dir=tmp_path)
    assert out["cards"][0]["status"] == "VOIDED"  # type: ignore[index]
    assert out["cards"][0]["void_reason"] == "error de tipo"  # type: ignore[index]


def test_desk_information_leaflet_and_regulation(tmp_path: Path) -> None:
    import pypdfium2  # type: ignore[import-untyped]

    code, _ = cli("leaflet", "--out", str(tmp_path / "leaflet.pdf"), data_dir=tmp_path)
    assert code == 0
    pdf = pypdfium2.PdfDocument(str(tmp_path / "leaflet.pdf"))
    width, height = pdf[0].get_size()
    assert abs(width / 72 * 25.4 - 148) < 1.5 and abs(height / 72 * 25.4 - 210) < 1.5  # A5
    text = pdf[0].get_textpage().get_text_bounded()
    assert "Precio de las tarjetas" in text and "5,00 €" in text
    code, _ = cli("regulation", "--out", str(tmp_path / "reg.pdf"), data_dir=tmp_path)
    assert code == 0
    reg = pypdfium2.PdfDocument(str(tmp_path / "reg.pdf"))
    body = "".join(reg[i].get_textpage().get_text_bounded() for i in range(len(reg)))
    assert "Artículo 25" in body and "Tarjetas de acceso" in body


def test_scan_replays_a_reader_into_the_admission_flow(tmp_path: Path) -> None:
    bursts = ROOT / "tests" / "scanner" / "bursts"
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert cli("registry", "import", str(snapshot), data_dir=tmp_path)[0] == 0
    env = dict(os.environ, ADMISSION_DB_KEY=KEY)
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "scan",
            "--admit",
            "--data-dir",
            str(tmp_path),
            "--replay",
            *(
                str(bursts / f"{n}.json")
                for n in ("td1_cr_only", "td3_cut_in_half", "hostile_control_chars", "markup_burst")
            ),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["event"] for x in lines] == ["DOCUMENT", "HINT", "HINT", "UNREADABLE"]
    assert lines[1]["code"] == "BURST_PARTIAL" and lines[2]["code"] == "BURST_CONTROL_CHARS"
    assert "<b>" not in proc.stdout and "onerror" not in proc.stdout  # nothing echoed back
    assert lines[0]["file_number"] == 1


def test_provisional_voucher_then_the_formal_card(tmp_path: Path) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text(f"{dni(11111111)}\n")
    assert cli("registry", "import", str(snapshot), data_dir=tmp_path)[0] == 0
    code, out = cli(
        "voucher",
        "issue",
        "--mrz",
        *spanish_dni_mrz(55555555),
        "--card-type",
        "WEEK",
        "--out",
        str(tmp_path / "v.pdf"),
        data_dir=tmp_path,
    )
    assert code == 0 and out["voucher"]["number"] == 1  # type: ignore[index]
    assert out["voucher"]["document_number"] == dni(55555555)  # type: ignore[index]
    assert out["voucher"]["price_cents"] == 2000  # type: ignore[index]
    assert (tmp_path / "v.pdf").read_bytes().startswith(b"%PDF")
    code, out = cli("voucher", "issue", "--mrz", *spanish_dni_mrz(11111111), data_dir=tmp_path)
    assert code == 1 and out["reasons"] == ["REGISTRY_LISTED"]  # type: ignore[index]
    assert out["voucher"] is None  # type: ignore[index]

    code, out = cli("voucher", "open", data_dir=tmp_path)
    assert [v["number"] for v in out["vouchers"]] == [1]  # type: ignore[index]
    code, out = cli(
        "voucher", "exchange", "1", "--mrz", *spanish_dni_mrz(66666666), data_dir=tmp_path
    )
    assert code == 1 and out["error"] == "VOUCHER_DOCUMENT_MISMATCH"  # type: ignore[index]
    code, out = cli(
        "voucher",
        "exchange",
        "1",
        "--mrz",
        *spanish_dni_mrz(55555555),
        "--no-pdf",
        data_dir=tmp_path,
    )
    assert code == 0 and out["card_number"] == 1  # type: ignore[index]
    code, out = cli("voucher", "open", data_dir=tmp_path)
    assert out["vouchers"] == []  # type: ignore[index]
    code, out = cli("voucher", "cancel", "1", "--reason", "x", data_dir=tmp_path)
    assert code == 1 and out["error"] == "VOUCHER_CLOSED"  # type: ignore[index]


def test_retention_runs_at_start_up(tmp_path: Path) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    cli("registry", "import", str(snapshot), data_dir=tmp_path)
    code, out = cli(
        "admit",
        "--mrz",
        *spanish_dni_mrz(77777777),
        "--no-pdf",
        "--at",
        "2025-01-10T22:00:00+01:00",
        data_dir=tmp_path,
        clock_override=True,
    )
    assert out["file_number"] == 1  # type: ignore[index]
    # That command's own daily purge ran first, on the system clock: the visit it then
    # recorded in the past stays until the next day's run.
    code, out = cli("visitor", "show", dni(77777777), data_dir=tmp_path)
    assert code == 0
    # The next day, any command opens the file with the purge: the old visit goes first.
    from datetime import UTC, datetime, timedelta

    from admission.retention_sweep import LAST_PURGE
    from db.keys import DbKey
    from db.store import SqlCipherStore

    with SqlCipherStore.open(tmp_path / "visitors.db", DbKey.from_text(KEY), create=False) as st:
        st.set_setting(LAST_PURGE, (datetime.now(UTC) - timedelta(days=1)).isoformat())
    code, out = cli("visitor", "show", dni(77777777), data_dir=tmp_path)
    assert code == 1 and out["error"] == "NOT_FOUND"  # type: ignore[index]


def test_the_demo_lives_in_its_own_folder_and_never_in_the_real_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ADMISSION_DB_KEY"}
    env.update(XDG_DATA_HOME=str(tmp_path), HOME=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "demo"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "DEMO" in proc.stderr and out["demo"] is True
    assert Path(out["data_dir"]).name == "demo"
    verdicts = [row["verdict"] for row in out["admissions"]]
    assert verdicts.count("ADMIT") >= 8 and "DENY" in verdicts and "SUPERVISOR" in verdicts
    assert all(Path(r["card_pdf"]).is_file() for r in out["admissions"] if r["card_pdf"])
    # the first visitors' documents went under the fake camera and the live MRZ reader
    assert [r["read_by"].startswith("camera, live") for r in out["admissions"][:4]] == [
        True,
        True,
        True,
        False,
    ]
    real = Path(out["data_dir"]).parent / "visitors.db"
    assert not real.exists()  # nothing was written where real visitors live


def test_watch_document_command_on_a_folder(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "01.png"), np.full((360, 640, 3), 128, np.uint8))
    code, out = cli("watch-document", str(frames), "--max-frames", "5")
    assert code == 1 and isinstance(out, dict)
    assert out["reason"] == "NO_READING" and out["mrz_lines"] == [] and out["frames"] == 1
    assert out["hints"] == [[1, "NO_DOCUMENT"]] and set(out) >= PARSE_KEYS
    code, out = cli("watch-document", str(tmp_path / "absent"))
    assert code == 1 and isinstance(out, dict) and out["reason"] == "CAMERA_NOT_FOUND"


def test_the_demo_camera_reads_the_document_it_was_shown(tmp_path: Path) -> None:
    from datetime import date

    from admission.generators.demo_people import demo_people
    from main import build_tools
    from ui.cli.demo import SEED, through_camera

    devices = build_tools(tmp_path, demo=True).devices
    people = demo_people(3, seed=SEED, today=date(2026, 12, 1), minors=0.0)
    for k, person in enumerate(people):
        lines = person.mrz(date(2026, 12, 1))
        got, read_by = through_camera(devices, lines, k)
        assert got == lines and read_by.startswith("camera, live")  # never a guess


def test_an_issued_card_is_never_lost_to_its_pdf(tmp_path: Path) -> None:
    # art. 22.1: the number is taken when the card is recorded; a PDF that cannot be
    # written afterwards is said beside it, with exit 0, and the card waits for a reprint
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert cli("registry", "import", str(snapshot), data_dir=tmp_path)[0] == 0
    (tmp_path / "cards").write_bytes(b"not a folder")  # the folder cannot be made
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(31313131), data_dir=tmp_path)
    assert code == 0 and out["verdict"] == "ADMIT" and out["card_number"] == 1  # type: ignore[index]
    assert out["card_pdf"] is None and out["in_reprint_queue"] is True  # type: ignore[index]
    assert out["card_error"]["error"] == "CARD_FILE_UNWRITABLE"  # type: ignore[index]
    code, out = cli("reprint-queue", data_dir=tmp_path)
    assert [c["card_number"] for c in out["cards"]] == [1]  # type: ignore[index]
    # once the folder is back, the next card's PDF is private: 0600 in a 0700 folder
    (tmp_path / "cards").unlink()
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(32323232), data_dir=tmp_path)
    pdf = Path(out["card_pdf"])  # type: ignore[index]
    assert code == 0 and pdf.read_bytes().startswith(b"%PDF")
    assert pdf.stat().st_mode & 0o777 == 0o600
    assert pdf.parent.stat().st_mode & 0o777 == 0o700
    assert not list(pdf.parent.glob("*.tmp"))  # no temporary file survives


@pytest.mark.skipif(os.geteuid() != 0, reason="a small tmpfs needs root")
def test_a_full_disk_for_the_card_pdf_keeps_the_card(tmp_path: Path) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert cli("registry", "import", str(snapshot), data_dir=tmp_path)[0] == 0
    cards = tmp_path / "cards"
    cards.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(cards)], check=True)
    try:
        (cards / "filler").write_bytes(b"x" * 4096)  # now the PDF finds no room
        code, out = cli("admit", "--mrz", *spanish_dni_mrz(33333333), data_dir=tmp_path)
        leftovers = [p.name for p in cards.iterdir() if p.name != "filler"]
    finally:
        subprocess.run(["umount", str(cards)], check=True)
    assert code == 0 and out["card_number"] == 1  # type: ignore[index]
    assert out["card_error"]["error"] == "CARD_FILE_DISK_FULL"  # type: ignore[index]
    assert leftovers == []  # no half-written file, no temporary file


def test_audit_verify_names_the_damaged_pages_and_the_file_takes_no_more_writes(
    tmp_path: Path,
) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert cli("registry", "import", str(snapshot), data_dir=tmp_path)[0] == 0
    for n in range(3):
        assert cli("admit", "--mrz", *spanish_dni_mrz(40000000 + n), data_dir=tmp_path)[0] == 0
    code, out = cli("audit", "verify", data_dir=tmp_path)
    assert code == 0 and out["integrity"]["ok"] is True  # type: ignore[index]
    db = tmp_path / "visitors.db"
    pages = db.stat().st_size // 4096
    with db.open("r+b") as raw:  # bytes overwritten in the middle of a page past the first
        raw.seek((pages - 2) * 4096 + 1000)
        raw.write(os.urandom(64))
    code, out = cli("audit", "verify", data_dir=tmp_path)
    if code == 3:  # the page held the schema: the file cannot be opened, and says why
        assert out["error"] == "DAMAGED_FILE" and "page(s) " in out["detail"]  # type: ignore[index]
    else:  # a data page: the check names it
        assert code == 1 and out["ok"] is False  # type: ignore[index]
        assert out["integrity"]["bad_pages"] == [pages - 1]  # type: ignore[index]
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(49999999), data_dir=tmp_path)
    assert code == 3 and out["error"] == "DAMAGED_FILE"  # type: ignore[index]
