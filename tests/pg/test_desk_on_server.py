"""Desks on the casino's server, run as operators run them: the command line (``main.run``
in this process, and real processes for the window) pointed at a throwaway TLS cluster by
``ADMISSION_DATABASE_URL`` or the ``database.url`` setting.

Two desks of one casino (arts. 154-155) share one visitor file: one card sequence (art.
22.1), one RIAJ replica (art. 20.2), one audit trail (art. 20.4). Each desk keeps its
certificates and the id of its database in its data folder's ``postgresql/``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests.factories import dni
from tests.test_cli import CHEAP_ARGON2, spanish_dni_mrz

ROOT = Path(__file__).resolve().parents[2]
KEY = "a casino's desk key, the same on every desk"
AUDIT_KEY = "5c" * 32
AT = "2026-11-28T22:00:00+01:00"


def new_database(cluster: Any, owner: str = "desk1") -> str:
    name = f"casino_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(cluster.superuser_conninfo("postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} OWNER {}").format(
                sql.Identifier(name), sql.Identifier(owner)
            )
        )
    return name


def server_url(cluster: Any, database: str, desk: str = "desk1") -> str:
    return (
        f"postgresql://{desk}@{cluster.host}:{cluster.port}/{database}?hostaddr={cluster.hostaddr}"
    )


def desk_folder(base: Path, cluster: Any, desk_id: str, role: str = "desk1") -> Path:
    """A desk's data folder with its TLS files under libpq's names in ``postgresql/``
    (the layout the README gives) and its desk id in its settings."""
    folder = base / desk_id
    certs = folder / "postgresql"
    certs.mkdir(parents=True)
    shutil.copyfile(cluster.ca_cert, certs / "root.crt")
    shutil.copyfile(cluster.client_cert(role), certs / "postgresql.crt")
    shutil.copyfile(cluster.client_key(role), certs / "postgresql.key")
    (certs / "postgresql.key").chmod(0o600)
    (folder / "settings.json").write_text(json.dumps({"desk.id": desk_id}), encoding="utf-8")
    return folder


@pytest.fixture
def server_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ADMISSION_DB_KEY", KEY)
    monkeypatch.setenv("ADMISSION_AUDIT_KEY", AUDIT_KEY)
    monkeypatch.setenv("ADMISSION_CLOCK_OVERRIDE", "1")
    for name in ("ADMISSION_USER", "ADMISSION_PASSWORD", "ADMISSION_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    yield


def cli(folder: Path, *args: str) -> tuple[int, Any]:
    import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main.run([*args, "--data-dir", str(folder)])
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else None


def import_register(folder: Path, tmp_path: Path) -> None:
    """A RIAJ snapshot listing one DNI (11111111), imported at the desk of ``folder``."""
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text(f"# RIAJ casino scope\n{dni(11111111)}\n", encoding="utf-8")
    code, out = cli(folder, "registry", "import", str(snapshot))
    assert code == 0, out


def admit(folder: Path, number: int, *extra: str) -> tuple[int, Any]:
    return cli(folder, "admit", "--mrz", *spanish_dni_mrz(number), "--at", AT, *extra)


def test_two_desks_share_one_file_one_card_sequence_and_one_register(
    pg_cluster: Any, tmp_path: Path, server_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = new_database(pg_cluster)
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, database))
    one = desk_folder(tmp_path, pg_cluster, "DESK1")
    two = desk_folder(tmp_path, pg_cluster, "DESK2")

    # nothing is made on the server except by init (art. 20.4)
    code, out = admit(one, 12345678)
    assert code == 3 and out["error"] == "PG_NO_VISITOR_FILE", out
    code, out = cli(one, "init")
    assert code == 0 and out["created"] is True, out
    database_id = out["file_id"]
    assert (one / "postgresql" / "database-id").read_text().strip() == database_id
    assert not (one / "visitors.db").exists()  # no file of its own

    import_register(one, tmp_path)

    code, out = admit(one, 12345678, "--card-type", "WEEK")
    assert code == 0 and out["verdict"] == "ADMIT" and out["card_number"] == 1, out
    assert Path(out["card_pdf"]).read_bytes().startswith(b"%PDF")
    code, out = admit(two, 23456789)  # the other desk continues the one sequence
    assert code == 0 and out["card_number"] == 2, out
    assert (two / "postgresql" / "database-id").read_text().strip() == database_id
    code, out = admit(two, 11111111)  # the replica imported at desk one
    assert code == 1 and out["reasons"] == ["REGISTRY_LISTED"], out
    # desk one's week card is still valid (art. 22): admitted again on it, no new number
    code, out = admit(two, 12345678)
    assert code == 0 and out["card_number"] is None and out["existing_card"] == 1, out

    code, out = cli(two, "audit", "verify")
    assert code == 0 and out["ok"] is True and out["integrity"]["pages"] == 0, out
    assert out["entries"] >= 5

    # the desk's own-file commands are refused with a code, nothing written
    code, out = cli(one, "backup", "--out", str(tmp_path / "copy.db"))
    assert code == 1 and out["error"] == "PG_DESK_ON_SERVER", out
    assert not (tmp_path / "copy.db").exists()


def test_a_desk_refuses_another_database_and_a_wrong_key(
    pg_cluster: Any, tmp_path: Path, server_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = new_database(pg_cluster), new_database(pg_cluster)
    desk = desk_folder(tmp_path, pg_cluster, "DESK1")
    other = desk_folder(tmp_path, pg_cluster, "OTHER")
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, first))
    assert cli(desk, "init")[0] == 0
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, second))
    assert cli(other, "init")[0] == 0
    before = _row_counts(pg_cluster, second)

    # the desk of the first casino pointed at the second database by mistake
    code, out = admit(desk, 12345678)
    assert code == 3 and out["error"] == "PG_DATABASE_OTHER", out
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, first))
    monkeypatch.setenv("ADMISSION_DB_KEY", "not the casino's key")
    code, out = admit(desk, 12345678)
    assert code == 3 and out["error"] == "PG_INSTALLATION_KEY_WRONG", out
    assert _row_counts(pg_cluster, second) == before


def test_a_bad_url_is_refused_and_never_falls_back_to_a_file(
    pg_cluster: Any, tmp_path: Path, server_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = desk_folder(tmp_path, pg_cluster, "DESK1")
    url = f"postgresql://desk1@{pg_cluster.host}:{pg_cluster.port}/x?sslmode=require"
    (desk / "settings.json").write_text(json.dumps({"database.url": url}), encoding="utf-8")
    code, out = admit(desk, 12345678)
    assert code == 1, out  # refused: the configuration, before any connection
    assert out["error"] == "PG_TARGET_TLS_TOO_WEAK", out
    assert not (desk / "visitors.db").exists()


def _row_counts(cluster: Any, database: str) -> tuple[int, int, int]:
    with psycopg.connect(cluster.superuser_conninfo(database)) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM visits), (SELECT count(*) FROM audit), "
            "(SELECT count(*) FROM cards)"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def test_the_window_admits_on_the_server(pg_cluster: Any, tmp_path: Path, server_env: None) -> None:
    """The window's smoke run (one demo admission through the real window, offscreen) on
    a desk pointed at the server: the demo makes its invented file on an empty database."""
    database = new_database(pg_cluster)
    desk = desk_folder(tmp_path, pg_cluster, "DEMO1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADMISSION_")}
    env.update(
        ADMISSION_DATABASE_URL=server_url(pg_cluster, database),
        QT_QPA_PLATFORM="offscreen",
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--smoke", "--data-dir", str(desk)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    visits, audit, cards = _row_counts(pg_cluster, database)
    assert visits >= 1 and cards >= 1 and audit >= visits
    assert not (desk / "visitors.db").exists()


def test_keys_are_rotated_from_a_desk_and_the_other_desk_follows(
    pg_cluster: Any, tmp_path: Path, server_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = new_database(pg_cluster)
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, database))
    one = desk_folder(tmp_path, pg_cluster, "DESK1")
    two = desk_folder(tmp_path, pg_cluster, "DESK2")
    assert cli(one, "init")[0] == 0
    import_register(one, tmp_path)
    code, out = admit(one, 12345678)
    assert code == 0 and out["card_number"] == 1, out

    code, out = cli(one, "db", "rotate-key", "--reencrypt", "--retire")
    assert code == 0, out
    code, out = admit(two, 12345678)  # found by its resealed index: the same visitor
    assert code == 0 and out["verdict"] == "ALREADY_ADMITTED", out  # a re-entry (art. 22)
    assert out["file_number"] == 1 and out["existing_card"] == 1, out  # today's card, held
    assert out["card_number"] is None, out  # no second card, no number taken
    assert admit(two, 23456789)[1]["card_number"] == 2

    monkeypatch.setenv("ADMISSION_NEW_DB_KEY", "the casino's new desk key")
    code, out = cli(one, "db", "rotate-key", "--rewrap")
    assert code == 0, out
    code, out = admit(two, 34567890)  # the old key no longer opens the server
    assert code == 3 and out["error"] == "PG_INSTALLATION_KEY_WRONG", out
    monkeypatch.setenv("ADMISSION_DB_KEY", "the casino's new desk key")
    code, out = cli(two, "audit", "verify")
    assert code == 0 and out["ok"] is True, out


def test_a_desk_of_its_own_file_has_no_server_keys_to_rotate(
    tmp_path: Path, server_env: None
) -> None:
    folder = tmp_path / "own"
    assert cli(folder, "init")[0] == 0
    code, out = cli(folder, "db", "rotate-key", "--reencrypt")
    assert code == 1 and out["error"] == "PG_DESK_NO_SERVER", out


def test_under_the_servers_roles_a_desk_admits_and_leaves_the_purge_to_the_purge_desk(
    pg_cluster: Any, tmp_path: Path, server_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The DBA's roles (db/pg/roles.py): desk2 is a counter desk (insert and read), desk1
    the director's desk, admitted to the purge too. The counter desk's commands run (the
    daily purge is not its to run) and its explicit purge is refused (art. 20.4)."""
    from admission.retention_sweep import LAST_PURGE
    from db.pg.roles import admit_login, grant_roles

    database = new_database(pg_cluster)
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, database))
    director = desk_folder(tmp_path, pg_cluster, "DESK1")
    assert cli(director, "init")[0] == 0
    with psycopg.connect(pg_cluster.superuser_conninfo(database), autocommit=True) as conn:
        names = grant_roles(conn, "public")
        admit_login(conn, "desk1", names.owner)
        admit_login(conn, "desk1", names.purge)
        admit_login(conn, "desk2", names.desk)
    import_register(director, tmp_path)

    with psycopg.connect(pg_cluster.superuser_conninfo(database), autocommit=True) as conn:
        conn.execute("DELETE FROM settings WHERE key = %s", (LAST_PURGE,))  # the day's purge due

    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, database, "desk2"))
    counter = desk_folder(tmp_path, pg_cluster, "DESK2", role="desk2")
    code, out = admit(counter, 12345678)
    assert code == 0 and out["card_number"] == 1, out
    code, out = cli(counter, "purge")
    assert code == 3 and out["error"] == "PG_PURGE_NOT_ALLOWED", out
    assert _row_counts(pg_cluster, database)[0] == 1
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, database))
    code, out = cli(director, "purge")  # the director's desk may
    assert code == 0, out


def test_the_commands_of_a_desk_answer_alike_on_the_server(
    pg_cluster: Any, tmp_path: Path, server_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The director's, the inspector's and the clerk's commands on a desk of the server:
    accounts, admissions, the visitor file, the inspectors' search and timeline, the
    reports and exports, rectification, retention, cards, vouchers, the audit."""
    from db import accounts

    monkeypatch.setattr(accounts, "Argon2Hasher", partial(accounts.Argon2Hasher, **CHEAP_ARGON2))
    database = new_database(pg_cluster)
    monkeypatch.setenv("ADMISSION_DATABASE_URL", server_url(pg_cluster, database))
    desk = desk_folder(tmp_path, pg_cluster, "DESK1")
    assert cli(desk, "init")[0] == 0
    import_register(desk, tmp_path)
    for name, role in (("jefa", "ADMIN"), ("dora", "DIRECTOR"), ("ines", "INSPECTOR")):
        monkeypatch.setenv("ADMISSION_NEW_PASSWORD", f"{name}-password-1")
        monkeypatch.setenv("ADMISSION_USER", "jefa")
        monkeypatch.setenv("ADMISSION_PASSWORD", "jefa-password-1")
        code, out = cli(desk, "account", "add", name, "--display-name", name, "--role", role)
        assert code == 0, out
    monkeypatch.delenv("ADMISSION_NEW_PASSWORD")

    def as_user(name: str) -> None:
        monkeypatch.setenv("ADMISSION_USER", name)
        monkeypatch.setenv("ADMISSION_PASSWORD", f"{name}-password-1")

    as_user("dora")
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", "dora-password-1")
    code, out = admit(desk, 12345678)
    assert code == 0 and out["card_number"] == 1, out
    exports = tmp_path / "exports"
    exports.mkdir()
    director = ("--as", "dora")
    inspector = ("--as", "ines", "--purpose", "control de accesos")
    answers: dict[str, tuple[int, Any]] = {
        "visitor show": cli(desk, "visitor", "show", "1"),
        "visitor search": cli(desk, "visitor", "search", "ruiz"),
        "reprint-queue": cli(desk, "reprint-queue"),
        "void-card": cli(desk, "void-card", "1", "--reason", "perdida", "--director", "dora"),
        "report figures": cli(desk, "report", "figures", "2026-11-01", "2026-11-30", *director),
        "report day": cli(
            desk,
            "report",
            "day",
            "2026-11-28",
            "--purpose",
            "Expediente 12/2026",
            "--out",
            str(exports / "day.pdf"),
            *director,
        ),
        "access-report": cli(
            desk,
            "access-report",
            "--file",
            "1",
            "--out",
            str(exports / "access.pdf"),
            "--purpose",
            "solicitud del interesado",
            *director,
        ),
        "rectify name": cli(
            desk,
            "rectify",
            "name",
            "1",
            "--surname",
            "RUIZ",
            "--given-names",
            "ANA",
            "--reason",
            "error de lectura",
            *director,
        ),
        "retention": cli(desk, "retention", *director),
        "voucher open": cli(desk, "voucher", "open"),
        "audit head": cli(desk, "audit", "head"),
    }
    as_user("ines")
    answers["inspect search"] = cli(desk, "inspect", "search", "--id", dni(12345678), *inspector)
    answers["inspect timeline"] = cli(desk, "inspect", "timeline", "1", *inspector)
    failed = {name: answer for name, answer in answers.items() if answer[0] != 0}
    assert not failed, failed
    assert [v["file_number"] for v in answers["inspect search"][1]["visitors"]] == [1]
    assert (exports / "day.pdf").read_bytes().startswith(b"%PDF")
    assert (exports / "access.pdf").read_bytes().startswith(b"%PDF")
    code, out = cli(desk, "audit", "verify")
    assert code == 0 and out["ok"] is True, out
