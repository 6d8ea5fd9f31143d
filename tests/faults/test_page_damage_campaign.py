"""Fault campaign: bytes overwritten at random pages of the real encrypted file, page 1
included, 60 times: every case is found before the next write (art. 20.4: the file is
kept whole or named damaged, never silently written into).

A case counts as found when the file is refused at open (DAMAGED_FILE, or a first page
the marker no longer recognises: WRONG_KEY/FILE_REPLACED/CORRUPT_FILE are named too) or
opens read-only with the damaged pages named and refuses the next admission.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from admission.errors import StoreError
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import entry
from tests.db.test_damage import PAGE, VISITORS, make_file, overwrite

CASES = 60
NAMED = {"DAMAGED_FILE", "WRONG_KEY", "FILE_REPLACED", "CORRUPT_FILE", "MARKER_MISSING"}


@pytest.mark.slow
def test_random_page_damage_is_always_found_before_the_next_write(tmp_path: Path) -> None:
    key = DbKey.from_text("page damage campaign")
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    make_file(pristine / "visitors.db", key)
    rng = random.Random(20261203)
    outcomes: dict[str, int] = {}
    for case in range(CASES):
        folder = tmp_path / f"case{case}"
        shutil.copytree(pristine, folder)
        path = folder / "visitors.db"
        total = path.stat().st_size // PAGE
        hit = sorted(rng.sample(range(1, total + 1), rng.randint(1, 3)))
        overwrite(path, rng, hit)
        try:
            store = SqlCipherStore.open(path, key, create=False)
        except StoreError as refused:
            assert refused.code in NAMED, (case, hit, refused.code)
            outcomes[f"refused at open: {refused.code}"] = (
                outcomes.get(f"refused at open: {refused.code}", 0) + 1
            )
            continue
        with store:
            assert store.damaged and set(store.damaged_pages) <= set(hit), (case, hit)
            with pytest.raises(StoreError) as write:
                store.record_admission(entry(VISITORS + 1))
            assert write.value.code == "DAMAGED_FILE"
        outcomes["opened read-only, write refused"] = (
            outcomes.get("opened read-only, write refused", 0) + 1
        )
    assert sum(outcomes.values()) == CASES
    print(f"\npage damage campaign: {CASES} cases, 0 written into; {outcomes}")
