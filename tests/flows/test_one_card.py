"""One person, one valid card (art. 22: the entry card is nominative and personal), on the
real encrypted file with several desks at once (R17: several desks share one visitor
file and one card sequence).

Each desk is its own process with its own connection. The check for a card already held
and the next card number are taken in the same ``BEGIN IMMEDIATE`` transaction, so desks
admitting the same person at the same instant issue one card, and desks admitting
different people issue a gapless sequence. The command line's answer carries the card
held and the reprint hint.
"""

from __future__ import annotations

import argparse
import multiprocessing
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from admission.clock import FixedClock
from admission.generators.mrz_build import build_td1
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.factories import SATURDAY_NIGHT, dni, dni_document, make_desk

SUPPORT = "CAB123456"  # a support number that is not a published specimen
SPAWN = multiprocessing.get_context("spawn")  # fresh interpreters: no inherited connection


def desk_process(
    path: str, key_hex: str, desk_id: int, people: list[int], start: Any, out: Any
) -> None:
    """One desk: open the file, wait for the others, admit ``people`` in turn."""
    clock = FixedClock(SATURDAY_NIGHT + timedelta(seconds=desk_id))
    with SqlCipherStore.open(Path(path), DbKey.from_text(key_hex), clock=clock) as store:
        desk, _, _ = make_desk(store, clock=clock)
        start.wait(timeout=60)
        for n in people:
            result = desk.admit(dni_document(n, support=SUPPORT), operator=f"desk-{desk_id}")
            held = result.existing_card.number if result.existing_card else None
            out.put((desk_id, n, result.recorded.card_number, held, result.verdict.codes))


def run_desks(path: Path, key: DbKey, plan: list[list[int]]) -> list[tuple[Any, ...]]:
    start = SPAWN.Barrier(len(plan))
    out = SPAWN.Queue()
    desks = [
        SPAWN.Process(target=desk_process, args=(str(path), key.hex(), i, people, start, out))
        for i, people in enumerate(plan, start=1)
    ]
    for desk in desks:
        desk.start()
    results = [out.get(timeout=120) for _ in range(sum(len(p) for p in plan))]
    for desk in desks:
        desk.join(timeout=60)
        assert desk.exitcode == 0
    return results


@pytest.fixture
def shared_file(tmp_path: Path) -> tuple[Path, DbKey]:
    path, key = tmp_path / "visitors.db", DbKey.generate()
    SqlCipherStore.open(path, key).close()  # a new, empty file the desks share
    return path, key


def check_file(path: Path, key: DbKey) -> list[int]:
    with SqlCipherStore.open(path, key) as store:
        assert store.verify().ok  # every card and visit is in the keyed chain (art. 20.4)
        with store.lock:
            return [r[0] for r in store.connection.execute("SELECT number FROM cards ORDER BY 1")]


@pytest.mark.parametrize("desks", [2, 4])
def test_desks_admitting_the_same_person_at_once_issue_one_card(
    shared_file: tuple[Path, DbKey], desks: int
) -> None:
    path, key = shared_file
    results = run_desks(path, key, [[1, 2, 3]] * desks)
    for person in (1, 2, 3):
        answers = [r for r in results if r[1] == person]
        issued = [r[2] for r in answers if r[2] is not None]
        assert len(issued) == 1, answers  # exactly one card for the person
        for _, _, number, held, codes in answers:
            if number is None:
                assert held == issued[0] and codes == ("ALREADY_ADMITTED",)
    assert check_file(path, key) == [1, 2, 3]


def test_four_desks_admitting_fifty_people_each_issue_two_hundred_gapless_cards(
    shared_file: tuple[Path, DbKey],
) -> None:
    path, key = shared_file
    plan = [list(range(d * 1000, d * 1000 + 50)) for d in range(1, 5)]
    results = run_desks(path, key, plan)
    numbers = sorted(r[2] for r in results)
    assert numbers == list(range(1, 201))  # none missing, none twice
    for desk_id in range(1, 5):  # each desk saw its own numbers strictly increase
        own = [r[2] for r in results if r[0] == desk_id]
        assert own == sorted(own)
    assert check_file(path, key) == list(range(1, 201))


def test_the_command_line_answer_names_the_card_held_and_the_reprint() -> None:
    from tests.fake_store import FakeStore
    from ui.cli import admit

    store = FakeStore()
    desk, _, _ = make_desk(store)
    parser, common = argparse.ArgumentParser(), argparse.ArgumentParser(add_help=False)
    admit._arguments(parser, common)
    lines = build_td1(
        document_code="ID",
        issuer="ESP",
        document_number=SUPPORT,
        optional_data_1=dni(1),
        birth_date=date(1980, 5, 17),
        expiry_date=date(2030, 1, 1),
        nationality="ESP",
        sex="F",
        surname="GARCIA LOPEZ",
        given_names="ANA",
    )
    args = parser.parse_args(["--mrz", *lines, "--no-pdf"])
    tools = SimpleNamespace(today=lambda: date(2026, 11, 28))
    ctx: Any = SimpleNamespace(
        tools=tools, desk=desk, accounts=SimpleNamespace(has_accounts=lambda: False)
    )
    code, first = admit.run(args, ctx)
    assert code == 0 and isinstance(first, dict) and first["card_number"] == 1
    code, again = admit.run(args, ctx)
    assert code == 0 and isinstance(again, dict)  # a re-entry, not a refusal
    assert (again["verdict"], again["reasons"]) == ("ALREADY_ADMITTED", ["ALREADY_ADMITTED"])
    assert (again["card_number"], again["existing_card"]) == (None, 1)
    held = store.card(1)
    assert held is not None and again["valid_until"] == held.valid_until.isoformat()
    assert store.last_card_number() == 1  # no card number taken
    assert again["hint"]["code"] == "REPRINT_POSSIBLE"
    assert again["hint"]["command"].startswith("print-card 1 --reason")
