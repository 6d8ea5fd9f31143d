"""``visitor note FILE TEXT`` (art. 20.3: free-text observations in the visitor file) at
the command line, in this process, on a real encrypted file: signed in, audited,
length-bounded, control characters refused, shown by ``visitor show``, corrected by
``rectify observation`` and erased with the file by the purge (art. 20.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import ADMIN, CLERK, DIRECTOR, cli
from tests.test_cli_data_protection import data, opened

__all__ = ["data"]  # the fixture: two visitors, an observation on file 1

INSPECTOR = ("ines", "inspector-pass-1")


def note(data: Path, *args: str, who: str = CLERK[0]) -> tuple[int, Any]:
    return cli("visitor", "note", *args, "--user", who, data_dir=data)


def shown(data: Path, number: int) -> list[dict[str, Any]]:
    code, out = cli("visitor", "show", str(number), "--user", DIRECTOR[0], data_dir=data)
    assert code == 0, out
    return list(out["observations"])  # type: ignore[index]


def test_a_clerk_adds_an_observation_that_the_file_shows_and_the_trail_names(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", CLERK[2])
    code, out = note(data, "2", "Pidió  la hoja de reclamaciones")
    assert code == 0, out
    made = out["observation"]
    assert (made["file_number"], made["author"], made["text"]) == (
        2, "ana", "Pidió la hoja de reclamaciones",
    )  # fmt: skip
    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    assert [o["text"] for o in shown(data, 2)] == ["Pidió la hoja de reclamaciones"]
    with opened(data) as ctx:
        entries = [e for e in ctx.store.audit_entries(0, 10_000) if e.action == "OBSERVATION"]
        assert ctx.store.verify().ok
    assert (entries[-1].actor, entries[-1].subject) == ("ana", "file:2")
    assert "reclamaciones" not in repr(entries)  # the trail commits to the row, never its text
    code, out = cli("audit", "verify", data_dir=data)
    assert (code, out["ok"]) == (0, True), out  # type: ignore[index]


def test_the_director_adds_one_and_rectifies_it(data: Path) -> None:
    code, out = note(data, "1", "Autorizado a la sala privada", who=DIRECTOR[0])
    assert code == 0, out
    ident = out["observation"]["observation_id"]
    code, out = cli("rectify", "observation", "1", str(ident), "--text",
                    "Autorizada a la sala privada", "--reason", "Error de escritura",
                    "--as", DIRECTOR[0], data_dir=data)  # fmt: skip
    assert code == 0, out
    assert [o["text"] for o in shown(data, 1)] == [
        "Discutió con el crupier",
        "Autorizada a la sala privada",
    ]


@pytest.mark.parametrize(
    ("args", "exit_code", "error"),
    [
        (("1", ""), 1, "OBSERVATION_TEXT_INVALID"),
        (("1", "x" * 501), 1, "OBSERVATION_TEXT_INVALID"),
        (("1", "oculto\x1b[2J"), 1, "OBSERVATION_TEXT_INVALID"),
        (("1", "nota\x00nula"), 1, "OBSERVATION_TEXT_INVALID"),
        (("9", "nota"), 1, "OBSERVATION_FILE_UNKNOWN"),
        (("0", "nota"), 2, None),
        (("uno", "nota"), 2, None),
    ],
)
def test_what_cannot_be_kept_is_refused_and_nothing_is_written(
    data: Path, args: tuple[str, str], exit_code: int, error: str | None
) -> None:
    code, out = note(data, *args, who=DIRECTOR[0])
    assert code == exit_code, out
    if error is not None:
        assert out["error"] == error and out["message"] and out["message_en"]
    assert len(shown(data, 1)) == 1


def test_only_the_counter_and_the_director_write_and_only_signed_in(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", ADMIN[2])
    code, out = note(data, "1", "nota", who=ADMIN[0])
    assert (code, out["error"]) == (1, "OBSERVATION_ROLE_REQUIRED")
    monkeypatch.setenv("ADMISSION_PASSWORD", "wrong-password")
    code, out = note(data, "1", "nota", who=CLERK[0])
    assert (code, out["error"]) == (1, "BAD_CREDENTIALS")
    monkeypatch.delenv("ADMISSION_USER", raising=False)
    code, out = cli("visitor", "note", "1", "nota", data_dir=data)
    assert (code, out["error"]) == (2, "USER_REQUIRED")  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    assert len(shown(data, 1)) == 1


def test_the_purge_erases_the_observation_with_the_file(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert note(data, "2", "Nota que se borra con la ficha", who=DIRECTOR[0])[0] == 0
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", DIRECTOR[2])
    code, out = cli("purge", "--at", "2027-07-01T12:00:00+02:00", "--user", DIRECTOR[0],
                    "--confirm-clock", "--director", DIRECTOR[0],
                    data_dir=data, clock_override=True)  # fmt: skip
    assert code == 0, out
    with opened(data) as ctx:
        assert ctx.store.visitor(2) is None
        assert ctx.store.observations(2) == []
