"""Child process for test_crash.py and the SIGKILL campaign: admits new visitors with
cards as fast as it can, and prints ``card N`` as soon as each has committed, until
killed. Usage: python -m tests.db.crash_child DB_PATH SEED (key in ADMISSION_DB_KEY)."""

from __future__ import annotations

import random
import sys
from datetime import timedelta
from pathlib import Path

from db.keys import key_from_env
from db.store import SqlCipherStore
from tests.db.factories import T0, card_for, entry


def main(path: str, seed: int) -> None:
    key = key_from_env()
    assert key is not None
    rng = random.Random(seed)
    with SqlCipherStore.open(Path(path), key) as store:
        print("ready", flush=True)
        i = 0
        while True:
            i += 1
            at = T0 + timedelta(seconds=seed * 100_000 + i)
            n = seed * 100_000 + i  # a new person each time: one valid card per person
            days = rng.choice((1, 1, 1, 3))
            rec = store.record_admission(
                entry(n, at, surname=f"Crash{n}", card=card_for(at, days=days))
            )
            assert rec.card_number is not None
            print(f"card {rec.card_number}", flush=True)  # committed: acknowledged
            if i % 5 == 0:
                store.mark_printed(rec.card_number, at)
            if i % 17 == 0:
                store.void_card(rec.card_number, "test void", "sup", at)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
