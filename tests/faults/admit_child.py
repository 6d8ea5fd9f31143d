"""Child process of the SIGKILL campaign: admits new visitors with cards as fast as it
can and prints ``card N`` as soon as each admission has committed, until killed.

Usage: python -m tests.faults.admit_child DB_PATH ROUND (key in ADMISSION_DB_KEY)."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

from db.keys import key_from_env
from db.store import SqlCipherStore
from tests.db.factories import T0, card_for, entry


def main(path: str, round_no: int) -> None:
    key = key_from_env()
    assert key is not None
    with SqlCipherStore.open(Path(path), key) as store:
        print("ready", flush=True)
        i = 0
        while True:
            i += 1
            at = T0 + timedelta(seconds=round_no * 100_000 + i)
            person = round_no * 100_000 + i  # a new visitor every time: one card each
            recorded = store.record_admission(
                entry(person, at, surname=f"Kill{person}", card=card_for(at))
            )
            print(f"card {recorded.card_number}", flush=True)  # committed: acknowledged


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
